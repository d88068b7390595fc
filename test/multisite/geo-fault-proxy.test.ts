import Database from 'better-sqlite3';
import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { FAST_SYNC_ENV, ownStatus, postFile, registryOf } from '../helpers/geo-blobs.js';
import { readState, SiteProcess, waitFor } from '../helpers/multisite.js';

/** A table the test adds to the secondary's file: one row per cursor move, to prove events apply in order. */
const AUDIT = 'zz_fault_cursor_audit';
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const newUser = () => {
  const suffix = randomUUID().replace(/-/g, '').slice(0, 10);
  return { username: `fault${suffix}`, email: `fault${suffix}@example.com`, name: `Fault ${suffix}`, reset_password: true };
};

/** Waits until the secondary applied the primary's newest event and every replicated table is equal. */
async function expectConverged(primary: SiteProcess, secondary: SiteProcess, timeoutMs = 20_000): Promise<void> {
  await waitFor(
    () => {
      const want = readState(primary);
      const got = readState(secondary, { exclude: [AUDIT] });
      if (got.position !== want.position) throw new Error(`cursor ${got.position}, primary at ${want.position}`);
      for (const table of Object.keys(want.tables)) expect(got.tables[table], `table ${table}`).toEqual(want.tables[table]);
      expect(Object.keys(got.tables)).toEqual(Object.keys(want.tables));
      return true;
    },
    { timeoutMs, message: 'secondary converged with the primary' },
  );
}

/** The value of one series in a Prometheus exposition, 0 when absent. */
function metricValue(text: string, series: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/** The agent's "replication step failed" log lines since `from` (an offset in the site's output). */
function failedSteps(site: SiteProcess, from: number): { failures: number; time: number }[] {
  return site.output
    .slice(from)
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('geo agent: replication step failed'))
    .map((line) => JSON.parse(line) as { failures: number; time: number });
}

describe('network faults between a secondary and its primary, through a TCP fault proxy', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;
  let proxy: FaultProxy;
  let auditFrom = 0;

  const writeUsers = async (count: number) => {
    for (let i = 0; i < count; i++) expect((await primary.api('/users', { method: 'POST', body: newUser() })).status).toBe(201);
  };

  beforeAll(async () => {
    primary = await SiteProcess.create({ name: 'primary', role: 'primary' });
    await primary.start();
    proxy = await startFaultProxy({ host: '127.0.0.1', port: primary.port });
    secondary = await SiteProcess.create({ name: 'secondary-1', role: 'secondary', primary, env: { ...FAST_SYNC_ENV, GEOFORGE_PRIMARY_URL: proxy.url } });
    await secondary.start();
    await expectConverged(primary, secondary);
    // Every cursor move the applier makes from here on, in order; a re-bootstrap would drop it.
    const db = new Database(secondary.dbFile);
    db.pragma('busy_timeout = 10000');
    try {
      auditFrom = db
        .transaction(() => {
          db.exec(`CREATE TABLE ${AUDIT} (id INTEGER PRIMARY KEY, last_event_id INTEGER NOT NULL);
            CREATE TRIGGER ${AUDIT}_move AFTER UPDATE OF last_event_id ON geo_cursor BEGIN INSERT INTO ${AUDIT} (last_event_id) VALUES (NEW.last_event_id); END;`);
          return db.prepare('SELECT last_event_id FROM geo_cursor WHERE id = 1').pluck().get() as number;
        })
        .immediate();
    } finally {
      db.close();
    }
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await secondary?.destroy();
    await primary?.destroy();
  });

  it('replicates through the proxy, and a partition shows in status and metrics with backoff between retries, then heals', async () => {
    await writeUsers(3);
    await expectConverged(primary, secondary);
    expect(proxy.stats.accepted).toBeGreaterThan(0);

    const logFrom = secondary.output.length;
    proxy.set('partition');
    await writeUsers(20);
    const status = await waitFor(
      async () => {
        const status = await ownStatus(secondary);
        expect(status.health).toMatch(/Replication error: primary unreachable/);
        return status;
      },
      { timeoutMs: 15_000, message: 'the partition in the status' },
    );
    expect(status).toMatchObject({ healthy: false, health_status: 'Unhealthy' });
    // Retries back off: 400 ms doubling to the 2 s cap, not a hot loop.
    const steps = await waitFor(() => {
      const steps = failedSteps(secondary, logFrom);
      return steps.length >= 5 ? steps : null;
    }, { timeoutMs: 15_000, message: 'five failed steps' });
    expect(steps.map((step) => step.failures).slice(0, 5)).toEqual([1, 2, 3, 4, 5]);
    const gaps = steps.slice(1, 5).map((step, index) => step.time - steps[index].time);
    expect(gaps[0]).toBeGreaterThanOrEqual(350);
    expect(gaps[1]).toBeGreaterThanOrEqual(750);
    expect(gaps[2]).toBeGreaterThanOrEqual(1500);
    expect(gaps[3]).toBeGreaterThanOrEqual(1900);
    expect(Math.max(...gaps)).toBeLessThan(6000);
    const metrics = (await secondary.api('/-/metrics', { as: null })).text;
    expect(metricValue(metrics, 'geo_replication_errors_total{reason="unreachable"}')).toBeGreaterThanOrEqual(5);
    // Nothing of the burst arrived while partitioned.
    expect(secondary.cursor()!.last_event_id).toBeLessThan(primary.lastEventId());

    proxy.set('pass');
    await expectConverged(primary, secondary);
    await waitFor(async () => (await ownStatus(secondary)).healthy === true, { timeoutMs: 10_000, message: 'healthy again' });
  }, 60_000);

  it('converges through delay, resets, a black hole and a slow drip, applying every event once and in order', async () => {
    proxy.set('delay', { delayMs: 150 });
    await writeUsers(10);
    await expectConverged(primary, secondary);

    // Resets while a burst goes on: each one kills the connections in flight.
    const burst = writeUsers(30);
    for (let i = 0; i < 5; i++) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      proxy.set('reset');
      await new Promise((resolve) => setTimeout(resolve, 50));
      proxy.set('pass');
    }
    await burst;
    await expectConverged(primary, secondary);

    proxy.set('drop');
    await writeUsers(5);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(secondary.cursor()!.last_event_id).toBeLessThan(primary.lastEventId());
    proxy.set('pass');
    await expectConverged(primary, secondary);

    proxy.set('drip', { dripBytes: 256, dripMs: 10 });
    await writeUsers(10);
    await expectConverged(primary, secondary, 30_000);
    proxy.set('pass');

    // The cursor only ever moved forward, and never skipped past an event it had not applied:
    // every users row of the primary is on the secondary (checked above) and the moves increase.
    const db = secondary.openReadOnly();
    try {
      const moves = db.prepare(`SELECT last_event_id FROM ${AUDIT} ORDER BY id`).pluck().all() as number[];
      expect(moves.length).toBeGreaterThan(0);
      for (let i = 1; i < moves.length; i++) expect(moves[i], `cursor move ${i}`).toBeGreaterThan(moves[i - 1]);
      expect(moves[0]).toBeGreaterThan(auditFrom);
      expect(moves.at(-1)).toBe(primary.lastEventId());
    } finally {
      db.close();
    }
    expect(proxy.stats.faulted).toBeGreaterThan(0);
  }, 90_000);

  it('never marks a truncated transfer synced, and syncs the whole file once healed', async () => {
    const project = (await primary.api('/projects', { method: 'POST', body: { name: `faults-${Date.now()}` } })).body;
    await expectConverged(primary, secondary);
    const content = Buffer.alloc(300_000);
    for (let i = 0; i < content.length; i++) content[i] = (i * 31 + 7) & 0xff;
    // Every connection carries at most 64 KB of answers: event pages get through, the file never does.
    proxy.set('truncate', { truncateAfter: 64 * 1024 });
    await postFile(primary, `/projects/${project.id}/uploads`, 'big.bin', content);
    const relative = await waitFor(() => {
      const row = registryOf(secondary).find((candidate) => candidate.item_type === 'attachment' && String(candidate.path).endsWith('/big.bin'));
      return row && row.retry_count >= 2 ? String(row.path) : null;
    }, { timeoutMs: 20_000, message: 'the truncated transfer failed twice' });
    const row = registryOf(secondary).find((candidate) => candidate.path === relative)!;
    expect(row.state).not.toBe('synced');
    expect(row.last_successful_sync_at).toBeNull();
    expect(row.last_sync_failure).toBeTruthy();
    const local = path.join(secondary.dataDir, relative);
    expect(await readdir(path.dirname(local)).catch(() => [])).not.toContain('big.bin');
    const status = await ownStatus(secondary);
    expect(status.attachments_failed_count).toBeGreaterThanOrEqual(1);
    const metrics = (await secondary.api('/-/metrics', { as: null })).text;
    expect(metrics).toMatch(/^geo_attachments_failed\{[^}]*\} [1-9]/m);
    expect(metricValue(metrics, 'geo_sync_total{type="attachment",outcome="failed"}')).toBeGreaterThanOrEqual(2);

    proxy.set('pass');
    await waitFor(() => registryOf(secondary).find((candidate) => candidate.path === relative)?.state === 'synced', { timeoutMs: 20_000, message: 'synced once healed' });
    expect(sha256(await readFile(local))).toBe(sha256(content));
    await expectConverged(primary, secondary);
  }, 60_000);
});
