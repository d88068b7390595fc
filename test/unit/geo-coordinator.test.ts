import { describe, expect, it } from 'vitest';
import { readView, safetyMarginMs } from '../../src/cluster/etcd/coordinator.js';
import { candidacy, type ClusterView, type LastPrimary, type MemberRecord, type SiteView } from '../../src/cluster/etcd/election.js';
import { ConfigError, loadConfig } from '../../src/config.js';

const PRIMARY = 'http://a.example';
const base = { GEOFORGE_GEO_SECRET: 'coordinator-secret-0123456789', GEOFORGE_EXTERNAL_URL: 'http://b.example', GEOFORGE_PORT: '8080' };

const secondary = (node: string, lastEventId: number, extra: Partial<SiteView> = {}): MemberRecord => ({
  role: 'secondary',
  node,
  url: `http://${node}.example`,
  epoch: 3,
  own_epoch: null,
  fenced: false,
  primary_url: PRIMARY,
  ready: true,
  last_event_id: lastEventId,
  unsynced_blobs: 0,
  bootstrap_required: false,
  sync_replication: null,
  decision: '',
  at: 0,
  ...extra,
});

const lastPrimary = (extra: Partial<LastPrimary> = {}): LastPrimary => ({
  node: 'a',
  url: PRIMARY,
  epoch: 3,
  last_event_id: 100,
  sync_required: 1,
  sync_mode: 'synchronous',
  sync_replicas: ['b', 'c'],
  at: 0,
  ...extra,
});

const view = (members: MemberRecord[], extra: Partial<ClusterView> = {}): ClusterView => ({
  leader: null,
  epoch: { value: 3, text: '3' },
  members,
  lastPrimary: lastPrimary(),
  lastFailover: null,
  paused: false,
  switchoverTo: null,
  ...extra,
});

const sync = { syncReplicas: 1, maximumLagOnFailover: 10, minSecondsBetweenFailovers: 60 };
const async = { ...sync, syncReplicas: 0 };

describe('geo coordinator election rules (issue 28)', () => {
  it('promotes the most caught-up synchronous replica with the next epoch; the other waits for it', () => {
    const b = secondary('b', 100);
    const c = secondary('c', 98);
    expect(candidacy(view([b, c]), b, sync, 0)).toMatchObject({ eligible: true, epoch: 4 });
    expect(candidacy(view([b, c]), c, sync, 0)).toMatchObject({ eligible: false, reason: expect.stringContaining('b is further') });
    // Equal positions: the lower node name goes first, so exactly one tries.
    const c2 = secondary('c', 100);
    expect(candidacy(view([b, c2]), c2, sync, 0).eligible).toBe(false);
    expect(candidacy(view([b, c2]), b, sync, 0).eligible).toBe(true);
  });

  it('refuses with synchronous replication when this site was no synchronous replica, or the primary was degraded', () => {
    const b = secondary('b', 100);
    expect(candidacy(view([b], { lastPrimary: lastPrimary({ sync_replicas: ['c'] }) }), b, sync, 0)).toMatchObject({ eligible: false, reason: expect.stringContaining('not a synchronous replica') });
    expect(candidacy(view([b], { lastPrimary: lastPrimary({ sync_mode: 'degraded' }) }), b, sync, 0)).toMatchObject({ eligible: false, reason: expect.stringContaining('degraded') });
  });

  it('a follower the last primary did not name yet is eligible while every named replica is alive, and goes first when further', () => {
    const b = secondary('b', 42);
    const c = secondary('c', 42);
    const named = view([b, c], { lastPrimary: lastPrimary({ sync_replicas: ['c'] }) });
    // The lower name goes first even though the primary's last report named only c: both hold the same events.
    expect(candidacy(named, b, sync, 0)).toMatchObject({ eligible: true });
    expect(candidacy(named, c, sync, 0)).toMatchObject({ eligible: false, reason: expect.stringContaining('b is further') });
    // The named replica dead: the unnamed one may lack what only it acknowledged.
    expect(candidacy(view([b], { lastPrimary: lastPrimary({ sync_replicas: ['c'] }) }), b, sync, 0)).toMatchObject({ eligible: false, reason: expect.stringContaining('c not alive') });
  });

  it('without synchronous replication, refuses a secondary lagging more than maximumLagOnFailover events', () => {
    expect(candidacy(view([secondary('b', 89)]), secondary('b', 89), async, 0)).toMatchObject({ eligible: false, reason: expect.stringContaining('lag 11') });
    expect(candidacy(view([secondary('b', 90)]), secondary('b', 90), async, 0).eligible).toBe(true);
  });

  it('waits while the leader key is held, failover is paused, within flap protection, or for a secondary of another primary', () => {
    const b = secondary('b', 100);
    expect(candidacy(view([b], { leader: { record: { node: 'a', url: PRIMARY, epoch: 3, since: '' }, lease: '1' } }), b, sync, 0).eligible).toBe(false);
    expect(candidacy(view([b], { paused: true }), b, sync, 0)).toMatchObject({ eligible: false, reason: expect.stringContaining('paused') });
    const recent = { at: 1_000_000, epoch: 3, from: 'x', to: 'a', reason: 'primary lost' as const };
    expect(candidacy(view([b], { lastFailover: recent }), b, sync, 1_030_000)).toMatchObject({ eligible: false, reason: expect.stringContaining('flap protection') });
    expect(candidacy(view([b], { lastFailover: recent }), b, sync, 1_061_000).eligible).toBe(true);
    const elsewhere = secondary('b', 100, { primary_url: 'http://z.example' });
    expect(candidacy(view([elsewhere]), elsewhere, sync, 0).eligible).toBe(false);
    expect(candidacy(view([b], { lastPrimary: null }), b, sync, 0).eligible).toBe(false);
    const copying = secondary('b', 100, { bootstrap_required: true });
    expect(candidacy(view([copying]), copying, sync, 0).eligible).toBe(false);
  });

  it('a switchover names its target: only it is eligible, flap protection aside', () => {
    const b = secondary('b', 100);
    const c = secondary('c', 90);
    const recent = { at: 0, epoch: 3, from: 'x', to: 'a', reason: 'primary lost' as const };
    expect(candidacy(view([b, c], { switchoverTo: 'c', lastFailover: recent }), c, sync, 1000)).toMatchObject({ eligible: true, epoch: 4 });
    expect(candidacy(view([b, c], { switchoverTo: 'c' }), b, sync, 0).eligible).toBe(false);
  });

  it('reads the keys under the prefix into one view', () => {
    const kv = (key: string, value: string, lease = '0') => ({ key: `/p/${key}`, value, createRevision: 1, modRevision: 1, lease });
    const read = readView('/p/', [
      kv('leader', JSON.stringify({ node: 'a', url: PRIMARY, epoch: 3, since: '' }), '42'),
      kv('epoch', '3'),
      kv('members/b', JSON.stringify(secondary('b', 5))),
      kv('paused', '1'),
    ]);
    expect(read).toMatchObject({ leader: { lease: '42', record: { node: 'a' } }, epoch: { value: 3, text: '3' }, paused: true, switchoverTo: null, lastPrimary: null });
    expect(read.members.map((member) => member.node)).toEqual(['b']);
  });

  it('keeps a safety margin of a fifth of the ttl, at least half a second', () => {
    expect(safetyMarginMs(2)).toBe(500);
    expect(safetyMarginMs(10)).toBe(2000);
  });
});

describe('geoCoordinator configuration', () => {
  const coordinator = (value: unknown) => ({ ...base, GEOFORGE_GEO_COORDINATOR: JSON.stringify(value) });

  it('is off by default and reads endpoints, ttl and credentials from the block and the environment', () => {
    expect(loadConfig({ env: {} }).geoCoordinator).toBeNull();
    const config = loadConfig({ env: { ...coordinator({ endpoints: ['http://127.0.0.1:2379/'], ttlSeconds: 3 }), GEOFORGE_GEO_COORDINATOR_USERNAME: 'geo', GEOFORGE_GEO_COORDINATOR_PASSWORD: 'pw' } });
    expect(config.geoCoordinator).toMatchObject({ endpoints: ['http://127.0.0.1:2379'], keyPrefix: '/geoforge/', ttlSeconds: 3, username: 'geo', password: 'pw', maximumLagOnFailover: 100, minSecondsBetweenFailovers: 60 });
  });

  it('refuses a bad block with a reason naming the setting', () => {
    const bad: Array<[unknown, RegExp]> = [
      [{ endpoints: [] }, /endpoints: expected a non-empty array/],
      [{ endpoints: ['ftp://x'] }, /endpoints: expected http or https/],
      [{ endpoints: ['http://x'], ttlSeconds: 1 }, /ttlSeconds: expected a whole number from 2/],
      [{ endpoints: ['http://x'], keyPrefix: 'geo' }, /keyPrefix: expected to end with \//],
      [{ endpoints: ['http://x'], caFile: '/nonexistent/ca.pem' }, /caFile: ENOENT/],
      [{ endpoints: ['http://x'], username: 'geo' }, /username and password go together/],
      [{ endpoints: ['http://x'], leader: true }, /unknown setting leader/],
    ];
    for (const [value, message] of bad) expect(() => loadConfig({ env: coordinator(value) })).toThrow(message);
    expect(() => loadConfig({ env: { ...coordinator({ endpoints: ['http://x'] }), GEOFORGE_EXTERNAL_URL: '' } })).toThrow(ConfigError);
    expect(() => loadConfig({ env: { ...coordinator({ endpoints: ['http://x'] }), GEOFORGE_PORT: '0' } })).toThrow(/fixed port/);
  });
});
