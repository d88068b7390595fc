import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneEvents } from '../../src/geo/event-log.js';
import { destroyAll, lastEventIdOf, readState, SiteProcess, waitFor } from '../helpers/multisite.js';

const newUser = () => {
  const suffix = randomUUID().replace(/-/g, '').slice(0, 10);
  return { username: `boot${suffix}`, email: `boot${suffix}@example.com`, name: `Boot ${suffix}`, reset_password: true };
};

async function expectConverged(primary: SiteProcess, secondary: SiteProcess): Promise<void> {
  await waitFor(
    () => {
      const want = readState(primary);
      const got = readState(secondary);
      if (got.position !== want.position) throw new Error(`${secondary.name} cursor ${got.position}, primary at ${want.position}`);
      expect(got.tables).toEqual(want.tables);
      return true;
    },
    { timeoutMs: 15_000, message: `${secondary.name} converged with the primary` },
  );
}

/** Prunes the primary's whole log from this process, through the same code the primary's job runs. */
function pruneEverything(primary: SiteProcess): { last: number; oldest: number | null } {
  const db = new Database(primary.dbFile);
  db.pragma('busy_timeout = 10000');
  try {
    const last = lastEventIdOf(db);
    const pruned = pruneEvents(db, { throughId: last, keepMin: 0, retainSinceMs: 0 });
    expect(pruned).toBeGreaterThan(0);
    return { last, oldest: db.prepare('SELECT min(id) FROM geo_event_log').pluck().get() as number | null };
  } finally {
    db.close();
  }
}

describe('multi-site bootstrap: secondaries that meet a pruned event log start from a snapshot', () => {
  let primary: SiteProcess;
  let early: SiteProcess;
  let late: SiteProcess;

  beforeAll(async () => {
    primary = await SiteProcess.create({ name: 'primary', role: 'primary', env: { GEOFORGE_GEO_LOG_KEEP_MIN: '0', GEOFORGE_GEO_HEARTBEAT_SECONDS: '59' } });
    await primary.start();
    [early, late] = await Promise.all([
      SiteProcess.create({ name: 'secondary-early', role: 'secondary', primary }),
      SiteProcess.create({ name: 'secondary-late', role: 'secondary', primary }),
    ]);
  });
  afterAll(async () => {
    await destroyAll([primary, early, late].filter(Boolean));
  });

  it('a new secondary bootstraps from a snapshot after the log was pruned, and one stopped behind the horizon re-bootstraps', async () => {
    await early.start();
    for (let i = 0; i < 5; i++) expect((await primary.api('/users', { method: 'POST', body: newUser() })).status).toBe(201);
    await expectConverged(primary, early);
    await early.kill('SIGTERM');
    const stoppedAt = early.cursor()!;

    // Writes the stopped secondary misses, then a prune past its cursor.
    const missed: number[] = [];
    for (let i = 0; i < 5; i++) {
      const created = await primary.api('/users', { method: 'POST', body: newUser() });
      expect(created.status).toBe(201);
      missed.push(created.body.id);
    }
    expect((await primary.api(`/users/${missed[0]}`, { method: 'PUT', body: { bio: 'after the prune horizon' } })).status).toBe(200);
    expect((await primary.api(`/users/${missed[1]}`, { method: 'DELETE' })).status).toBe(204);
    const { last, oldest } = pruneEverything(primary);
    expect(last).toBeGreaterThan(stoppedAt.last_event_id);
    expect(oldest === null || oldest > stoppedAt.last_event_id + 1).toBe(true);

    // The stopped one, restarted while the log is (most likely) empty — heartbeats come once a
    // minute here — finds its cursor behind the pruned horizon, says so, and re-bootstraps.
    await early.start();
    await waitFor(() => early.cursor()!.bootstrapped_at !== stoppedAt.bootstrapped_at, { timeoutMs: 15_000, message: 'secondary-early re-bootstrapped' });
    // Log lines are flushed in batches, so the explanation may trail the re-bootstrap a little.
    await waitFor(() => /behind the primary's pruned horizon/.test(early.output), { message: 'secondary-early logged why it re-bootstrapped' });
    await expectConverged(primary, early);
    expect((await early.api(`/users/${missed[0]}`)).body.bio).toBe('after the prune horizon');
    expect((await early.api(`/users/${missed[1]}`)).status).toBe(404);

    // A secondary that never ran starts from a snapshot and follows the log from there.
    await late.start();
    await waitFor(() => /bootstrapped/.test(late.output), { message: 'secondary-late logged its bootstrap' });
    await expectConverged(primary, late);
    expect((await late.api(`/users/${missed[0]}`)).body.bio).toBe('after the prune horizon');
    expect((await late.api(`/users/${missed[1]}`)).status).toBe(404);

    // Both keep following the log.
    const after = await early.api('/users', { method: 'POST', body: newUser() });
    expect(after.status).toBe(201);
    expect(after.headers['x-geoforge-node']).toBe('primary');
    expect((await early.api(`/users/${after.body.id}`)).status).toBe(200);
    await expectConverged(primary, early);
    await expectConverged(primary, late);
  }, 60_000);
});
