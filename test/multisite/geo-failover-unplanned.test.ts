import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonOut, projectWithCommit } from '../helpers/failover.js';
import { refsChecksum } from '../../src/geo/repository-checksum.js';
import { repositoryPath } from '../../src/storage/layout.js';
import { startCluster, type SiteProcess } from '../helpers/multisite.js';

interface Answered {
  id: number;
  username: string;
}

/** Writes users on `primary` from 8 workers until it dies; SIGKILLs it once `killAfter` writes were answered. Returns the 2xx ones. */
async function burstThenKill(primary: SiteProcess, killAfter: number): Promise<Answered[]> {
  const answered: Answered[] = [];
  let killed: Promise<void> | null = null;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (!killed || primary.running) {
        const suffix = randomUUID().replace(/-/g, '').slice(0, 12);
        const body = { username: `burst${suffix}`, email: `burst${suffix}@example.com`, name: `Burst ${suffix}`, reset_password: true };
        const response = await primary.api('/users', { method: 'POST', body }).catch(() => null);
        if (!response) break;
        if (response.status === 201) answered.push({ id: response.body.id, username: body.username });
        if (answered.length >= killAfter && !killed) killed = primary.kill('SIGKILL');
      }
    }),
  );
  await killed;
  return answered;
}

/** The id of the event that inserted each user, from the dead primary's own file. */
function insertEvents(primary: SiteProcess, users: readonly Answered[]): Map<number, number> {
  const db = new Database(primary.dbFile, { readonly: true });
  try {
    const first = db.prepare("SELECT min(id) FROM geo_event_log WHERE table_name = 'users' AND row_id = ?").pluck();
    return new Map(users.map((user) => [user.id, first.get(user.id) as number]));
  } finally {
    db.close();
  }
}

function usersOn(site: SiteProcess, ids: readonly number[]): Set<number> {
  const db = site.openReadOnly();
  try {
    const find = db.prepare('SELECT id FROM users WHERE id = ?').pluck();
    return new Set(ids.filter((id) => find.get(id) !== undefined));
  } finally {
    db.close();
  }
}

describe('unplanned failover: the primary is SIGKILLed during a burst of writes, the secondary is promoted with force', () => {
  let cluster: Awaited<ReturnType<typeof startCluster>> | null = null;
  afterEach(async () => {
    await cluster?.destroy();
    cluster = null;
  });

  it('with geoSyncReplicas=1 every write answered 2xx is on the promoted secondary', async () => {
    // One event per long-poll answer, as in the asynchronous case below, where this loses most writes.
    cluster = await startCluster(1, { primaryEnv: { GEOFORGE_GEO_SYNC_REPLICAS: '1', GEOFORGE_GEO_SYNC_TIMEOUT_MS: '20000', GEOFORGE_GEO_EVENT_BATCH_SIZE: '1' } });
    const { primary } = cluster;
    const [a] = cluster.secondaries;
    const answered = await burstThenKill(primary, 150);
    // Through the admin API this time, on the secondary itself (never forwarded to the dead primary).
    const nodes = (await a.api('/geo_nodes')).body as Array<{ id: number; name: string }>;
    const self = nodes.find((node) => node.name === a.name)!;
    const other = nodes.find((node) => node.name !== a.name)!;
    expect((await a.api(`/geo_nodes/${other.id}/promote`, { method: 'POST', body: { force: true } })).status).toBe(400);
    const promoted = await a.api(`/geo_nodes/${self.id}/promote`, { method: 'POST', body: { force: true } });
    expect(promoted.status).toBe(201);
    const report = promoted.body;
    expect(report).toMatchObject({ epoch: 1, forced: true, promoted_by: 'root', node: a.name });
    expect((await a.api(`/geo_nodes/${self.id}/promote`, { method: 'POST', body: { force: true } })).status).toBe(400);
    const present = usersOn(a, answered.map((user) => user.id));
    console.log(`geoSyncReplicas=1: ${answered.length} writes answered 2xx before the kill, ${present.size} on the promoted secondary; it reports ${report.missing_events} missing event(s)`);
    expect(present.size).toBe(answered.length);
    const metrics = (await a.api('/-/metrics', { as: null })).text;
    expect(metrics).toMatch(/^geo_fencing_epoch 1$/m);
    expect((await a.api('/users', { method: 'POST', body: { username: 'afterkill1', email: 'afterkill1@example.com', name: 'After', reset_password: true } })).status).toBe(201);
  }, 120_000);

  it('with geoSyncReplicas=1 a push is answered once the secondary synced the repository, and an API write once it applied the event', async () => {
    cluster = await startCluster(1, { primaryEnv: { GEOFORGE_GEO_SYNC_REPLICAS: '1', GEOFORGE_GEO_SYNC_TIMEOUT_MS: '3000' } });
    const { primary } = cluster;
    const [a] = cluster.secondaries;
    const write = await primary.api('/users', { method: 'POST', body: { username: 'syncwrite', email: 'syncwrite@example.com', name: 'Sync', reset_password: true } });
    expect(write.status).toBe(201);
    expect(write.headers['x-geoforge-sync-replication']).toBe('applied');
    for (let i = 0; i < 3; i++) {
      // No wait here: when git push returns, the secondary already has the same refs.
      const project = await projectWithCommit(primary, `sync-push-${i}`);
      expect(await refsChecksum(repositoryPath(a.dataDir, project.id))).toBe(await refsChecksum(repositoryPath(primary.dataDir, project.id)));
    }
    const metrics = (await primary.api('/-/metrics', { as: null })).text;
    expect(metrics).toMatch(/^geo_sync_replication_synchronous 1$/m);
    expect(metrics).toMatch(/^geo_sync_replication_writes_total\{outcome="timeout"\} 0$/m);

    // The secondary stops: writes wait out the timeout once, are counted, and the primary says it is degraded.
    a.signal('SIGSTOP');
    try {
      const slow = await primary.api('/users', { method: 'POST', body: { username: 'syncslow', email: 'syncslow@example.com', name: 'Slow', reset_password: true } });
      expect(slow.status).toBe(201);
      expect(slow.headers['x-geoforge-sync-replication']).toBe('timeout');
      const next = await primary.api('/users', { method: 'POST', body: { username: 'syncnext', email: 'syncnext@example.com', name: 'Next', reset_password: true } });
      expect(next.headers['x-geoforge-sync-replication']).toBe('unconfirmed');
      const own = (await primary.api('/geo_nodes')).body.find((node: any) => node.primary);
      const status = (await primary.api(`/geo_nodes/${own.id}/status`)).body;
      expect(status.health).toMatch(/Synchronous replication degraded/);
      expect(status.sync_replication).toMatchObject({ mode: 'degraded', replicas_required: 1, writes_timed_out: 1 });
      expect((await primary.api('/-/metrics', { as: null })).text).toMatch(/^geo_sync_replication_writes_total\{outcome="timeout"\} 1$/m);
    } finally {
      a.child?.kill('SIGCONT');
    }
  }, 120_000);

  it('with geoSyncReplicas=0 the lost writes are exactly those after the last applied event, and promote reports the events it knows it lacks', async () => {
    // One event per long-poll answer: the secondary falls behind the burst, yet each answer tells it the primary's newest event.
    cluster = await startCluster(1, { primaryEnv: { GEOFORGE_GEO_EVENT_BATCH_SIZE: '1' } });
    const { primary } = cluster;
    const [a] = cluster.secondaries;
    const answered = await burstThenKill(primary, 300);
    const report = jsonOut(await a.cli(['geo', 'promote', '--force', '--json']));
    const applied = report.last_applied_event_id as number;
    const events = insertEvents(primary, answered);
    const present = usersOn(a, answered.map((user) => user.id));
    const lost = answered.filter((user) => !present.has(user.id));
    // Exactly: a 2xx write is on the promoted site if and only if its event is at or before the last one applied there.
    for (const user of answered) expect(present.has(user.id), `user ${user.id} (event ${events.get(user.id)}, applied ${applied})`).toBe(events.get(user.id)! <= applied);
    const onDisk = new Database(primary.dbFile, { readonly: true });
    const deadLast = onDisk.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'geo_event_log'").pluck().get() as number;
    onDisk.close();
    console.log(
      `geoSyncReplicas=0: ${answered.length} writes answered 2xx, ${lost.length} lost (events after ${applied}); promote reports ${report.missing_events} missing event(s), ` +
        `the dead primary's file holds ${deadLast - applied} event(s) after ${applied}`,
    );
    expect(lost.length).toBeGreaterThan(0);
    // What promote reports is what it knew of: never more than was really lost, and here (it heard from
    // the primary until the kill) within the events of the writes in flight at that moment.
    expect(report.missing_events).toBe(Math.max(0, report.primary_last_event_id - applied));
    expect(report.missing_events).toBeGreaterThan(0);
    expect(report.missing_events).toBeLessThanOrEqual(deadLast - applied);
    expect(report.last_applied_event_at).not.toBeNull();
  }, 120_000);
});
