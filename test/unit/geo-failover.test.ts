import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type Config } from '../../src/config.js';
import { openDatabase } from '../../src/db/connection.js';
import { migrate } from '../../src/db/migrate.js';
import { readCursor } from '../../src/geo/agent/applier.js';
import { Fence } from '../../src/geo/fence.js';
import { promoteSecondary, type PromotionSource } from '../../src/geo/promote.js';
import { readRoleState, resolveRole } from '../../src/geo/role-state.js';
import { ReplicaPositions } from '../../src/geo/sync-replication.js';
import { createSiteMetrics } from '../../src/observability/metrics.js';

const SECRET = 'a-geo-secret-of-some-length';
const silent = pino({ level: 'silent' });

describe('persisted role', () => {
  let dataDir: string;
  const config = (role: 'primary' | 'secondary', primaryUrl?: string): Config =>
    loadConfig({ overrides: { dataDir, role, primaryUrl: primaryUrl ?? null, geoSecret: SECRET } });
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'geoforge-role-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('runs with the configured role until a transition is persisted, then keeps the persisted one', () => {
    const configured = config('secondary', 'http://old.example');
    expect(readRoleState(dataDir)).toBeNull();
    expect(resolveRole(configured, null)).toBe(configured);
    const fence = new Fence(configured, null, silent);
    fence.transition({ role: 'primary', primaryUrl: null, epoch: 1, epochPrimaryUrl: null, ownEpoch: 1, reason: 'promoted' });
    const persisted = readRoleState(dataDir)!;
    expect(persisted).toMatchObject({ role: 'primary', epoch: 1, ownEpoch: 1, supersedes: { role: 'secondary', primaryUrl: 'http://old.example' } });
    // Restarted with the configuration it had when promoted: it stays primary.
    expect(resolveRole(configured, persisted)).toMatchObject({ role: 'primary' });
    // Configured as what it now is: fine too.
    expect(resolveRole(config('primary'), persisted)).toMatchObject({ role: 'primary' });
  });

  it('refuses at boot a configuration that names neither the persisted role nor the one it replaced', () => {
    const fence = new Fence(config('secondary', 'http://old.example'), null, silent);
    fence.transition({ role: 'primary', primaryUrl: null, epoch: 1, epochPrimaryUrl: null, ownEpoch: 1, reason: 'promoted' });
    expect(() => resolveRole(config('secondary', 'http://elsewhere.example'), readRoleState(dataDir))).toThrow(ConfigError);
    expect(() => resolveRole(config('secondary', 'http://elsewhere.example'), readRoleState(dataDir))).toThrow(/records primary \(promoted at .*secondary of http:\/\/old.example/);
  });

  it('learns only higher epochs; a primary that learns one is fenced, durably', () => {
    const fence = new Fence(config('primary'), null, silent);
    expect(fence.learn(0, 'http://x', 'test')).toBe(false);
    expect(fence.writeRefusal()).toBeNull();
    expect(fence.learn(2, 'http://new.example', 'test')).toBe(true);
    expect(fence.fenced()).toBe(true);
    expect(fence.writeRefusal()).toEqual({ kind: 'fenced', epoch: 2, primaryUrl: 'http://new.example' });
    expect(fence.learn(1, 'http://older.example', 'test')).toBe(false);
    const again = new Fence(config('primary'), readRoleState(dataDir), silent);
    expect(again.fenced()).toBe(true);
  });
  it('forgets a freeze when the role changes: an old primary demoted and promoted back takes writes at once', async () => {
    const fence = new Fence(config('primary'), null, silent);
    expect(await fence.freeze(15_000, 'site-b', 10)).toBe(true);
    expect(fence.writeRefusal()).toEqual({ kind: 'frozen', by: 'site-b' });
    fence.learn(1, 'http://b.example', 'test');
    fence.transition({ role: 'secondary', primaryUrl: 'http://b.example', epoch: 1, epochPrimaryUrl: 'http://b.example', ownEpoch: 0, bootstrapRequired: true, reason: 'demoted' });
    fence.transition({ role: 'primary', primaryUrl: null, epoch: 2, epochPrimaryUrl: null, ownEpoch: 2, reason: 'promoted' });
    expect(fence.writeRefusal()).toBeNull();
    expect(new Fence(config('primary'), readRoleState(dataDir), silent).writeRefusal()).toBeNull();
  });

  it('keeps a freeze across a restart until its lease ends, and a lifted one stays lifted', async () => {
    const fence = new Fence(config('primary'), null, silent);
    await fence.freeze(15_000, 'site-b', 10);
    // The site is killed and starts again within the lease.
    const restarted = new Fence(config('primary'), null, silent);
    expect(restarted.writeRefusal()).toEqual({ kind: 'frozen', by: 'site-b' });
    expect(restarted.writeRefusal(Date.now() + 16_000)).toBeNull();
    restarted.thaw();
    expect(new Fence(config('primary'), null, silent).writeRefusal()).toBeNull();
  });
});

describe('a promotion cut short (issue 20: sites killed mid-promotion)', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'geoforge-promote-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('has recorded itself, as the first events of its own log, by the time the role file says primary', async () => {
    const config = loadConfig({ overrides: { dataDir, role: 'secondary', primaryUrl: 'http://old.example', geoSecret: SECRET } });
    const db = openDatabase(path.join(dataDir, 'geoforge.sqlite'));
    migrate(db);
    db.prepare("INSERT INTO geo_cursor (id, last_event_id, last_event_at, bootstrapped_at) VALUES (1, 41, 1000, '2026-01-01T00:00:00Z')").run();
    const fence = new Fence(config, null, silent);
    const source = {
      agent: { primaryLastEventId: 41, primaryLastSeenAt: 1000 },
      cursor: () => null,
      blobCounts: () => ({}),
      missingOnPrimary: () => 0,
      backfill: async () => undefined,
    } as unknown as PromotionSource;
    // The site dies as it switches role, just after the role file was written: what is on disk then is what it restarts with.
    let onDisk: { role: unknown; promotions: unknown[]; events: unknown[]; cursor: unknown } | null = null;
    const ctx = {
      config,
      db,
      fence,
      log: silent,
      nodeName: 'site-a',
      externalUrl: 'http://a.example',
      switchRole: async () => {
        onDisk = {
          role: readRoleState(dataDir),
          promotions: db.prepare('SELECT epoch, node_name, previous_primary_url, from_event_id FROM geo_promotions').all(),
          events: db.prepare('SELECT id, table_name FROM geo_event_log ORDER BY id').all(),
          cursor: db.prepare('SELECT * FROM geo_cursor').get(),
        };
        throw new Error('SIGKILL');
      },
    } as unknown as Parameters<typeof promoteSecondary>[0];
    try {
      await expect(promoteSecondary(ctx, { source, primaryUrl: 'http://old.example', stopReplication: async () => undefined }, { force: true, timeoutMs: 0, by: 'cli' }, () => undefined)).rejects.toThrow('SIGKILL');
    } finally {
      db.close();
    }
    expect(onDisk).toEqual({
      role: expect.objectContaining({ role: 'primary', epoch: 1, ownEpoch: 1 }),
      promotions: [{ epoch: 1, node_name: 'site-a', previous_primary_url: 'http://old.example', from_event_id: 41 }],
      // The log goes on from the event the promotion started from, the promotion first (followers continue from it).
      events: [{ id: 42, table_name: 'geo_promotions' }],
      cursor: undefined,
    });
  });
  it('cut between its database transaction and its role file, leaves a secondary without a cursor, which re-bootstraps at once', async () => {
    const config = loadConfig({ overrides: { dataDir, role: 'secondary', primaryUrl: 'http://old.example', geoSecret: SECRET } });
    const db = openDatabase(path.join(dataDir, 'geoforge.sqlite'));
    migrate(db);
    db.prepare("INSERT INTO geo_cursor (id, last_event_id, last_event_at, bootstrapped_at) VALUES (1, 41, 1000, '2026-01-01T00:00:00Z')").run();
    // The role file cannot be written: the process "dies" right after the transaction.
    await mkdir(path.join(dataDir, 'geo-role.json.part'));
    const source = { agent: { primaryLastEventId: 41, primaryLastSeenAt: 1000 }, cursor: () => null, blobCounts: () => ({}), missingOnPrimary: () => 0 } as unknown as PromotionSource;
    let switched = 0;
    const switchRole = async () => void (switched += 1);
    const ctx = { config, db, fence: new Fence(config, null, silent), log: silent, nodeName: 'site-a', externalUrl: 'http://a.example', switchRole } as unknown as Parameters<typeof promoteSecondary>[0];
    try {
      await expect(promoteSecondary(ctx, { source, primaryUrl: 'http://old.example', stopReplication: async () => undefined }, { force: true, timeoutMs: 0, by: 'cli' }, () => undefined)).rejects.toThrow(/EISDIR/);
      // A running site does not wait for a restart: it starts its (secondary) role again at once.
      expect(switched).toBe(1);
      expect(ctx.fence.current.role).toBe('secondary');
      // It restarts with its configured role (a secondary of the old primary, epoch 0) and no
      // cursor, so its agent takes a fresh snapshot of the old primary: the promotion never
      // happened, no other site heard of epoch 1, and it can be run again.
      expect(readRoleState(dataDir)).toBeNull();
      expect(readCursor(db)).toBeNull();
    } finally {
      db.close();
    }
  });
});

describe('synchronous replication positions', () => {
  const metrics = () => createSiteMetrics().geoFailover;

  it('confirms a write once enough live secondaries asked past it, and degrades after a timeout until they catch up', async () => {
    let newest = 10;
    const replicas = new ReplicaPositions(1, 50, () => newest, metrics());
    replicas.applied('s1', 5);
    const waiting = replicas.waitFor(10);
    replicas.applied('s1', 10);
    expect(await waiting).toBe('applied');
    expect(await replicas.waitFor(11)).toBe('timeout');
    expect(replicas.state()).toMatchObject({ mode: 'degraded', writes_timed_out: 1 });
    expect(replicas.problem()).toMatch(/degraded/);
    newest = 12;
    expect(await replicas.waitFor(12)).toBe('unconfirmed');
    replicas.applied('s1', 11);
    expect(replicas.state().mode).toBe('synchronous');
    await expect(new ReplicaPositions(0, 50, () => 0, metrics()).waitFor(1)).resolves.toBe('off');
  });
});
