import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readState, runConcurrently, useCluster, waitFor, type SiteProcess } from '../helpers/multisite.js';

/** A table the test adds to a secondary's file: one row per INSERT or UPDATE the applier makes on users. */
const AUDIT = 'zz_multisite_apply_audit';

const unique = () => randomUUID().replace(/-/g, '').slice(0, 10);
const newUser = (attrs: Record<string, unknown> = {}) => {
  const suffix = unique();
  return { username: `geo${suffix}`, email: `geo${suffix}@example.com`, name: `Geo ${suffix}`, reset_password: true, ...attrs };
};

/** Waits until `secondary` has applied exactly the primary's newest event, then compares every replicated table. */
async function expectConverged(primary: SiteProcess, secondary: SiteProcess, timeoutMs = 15_000): Promise<number> {
  return waitFor(
    () => {
      const want = readState(primary);
      const got = readState(secondary, { exclude: [AUDIT] });
      if (got.position !== want.position) throw new Error(`${secondary.name} cursor ${got.position}, primary at ${want.position}`);
      expect(Object.keys(got.tables)).toEqual(Object.keys(want.tables));
      for (const table of Object.keys(want.tables)) expect(got.tables[table], `${secondary.name}: table ${table}`).toEqual(want.tables[table]);
      return want.position;
    },
    { timeoutMs, message: `${secondary.name} converged with the primary` },
  );
}

/** The status of a node as the primary serves it at GET /geo_nodes/status. */
async function statusOf(primary: SiteProcess, nodeName: string): Promise<Record<string, any> | null> {
  const nodes = await primary.api('/geo_nodes');
  const node = nodes.body.find((candidate: { name: string }) => candidate.name === nodeName);
  if (!node) return null;
  const response = await primary.api('/geo_nodes/status');
  return response.body.find((status: { geo_node_id: number }) => status.geo_node_id === node.id) ?? null;
}

describe('multi-site replication: a primary and two secondaries as real processes', () => {
  let primary: SiteProcess;
  let s1: SiteProcess;
  let s2: SiteProcess;

  // Keep the whole log: the double-apply audit below counts the primary's events.
  useCluster(2, { primaryEnv: { GEOFORGE_GEO_LOG_KEEP_MIN: '100000000' } }, (sites) => {
    ({ primary } = sites);
    [s1, s2] = sites.secondaries;
  });

  it('replicates users created, updated, blocked and deleted on the primary to both secondaries', async () => {
    const created = await primary.api('/users', { method: 'POST', body: newUser({ bio: 'first' }) });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    const fields = (body: Record<string, unknown>) => ({ id: body.id, username: body.username, name: body.name, bio: body.bio, state: body.state, email: body.email });
    const seen = async (expected: Record<string, unknown> | null) => {
      for (const secondary of [s1, s2]) {
        await waitFor(
          async () => {
            const got = await secondary.api(`/users/${id}`);
            if (expected === null) expect(got.status).toBe(404);
            else {
              expect(got.status).toBe(200);
              expect(fields(got.body)).toEqual(expected);
              expect(got.headers['x-geoforge-node']).toBe(secondary.name);
            }
            return true;
          },
          { message: `${secondary.name} sees user ${id}` },
        );
      }
    };
    await seen(fields(created.body));

    const updated = await primary.api(`/users/${id}`, { method: 'PUT', body: { name: 'Renamed On Primary', bio: 'second' } });
    expect(updated.status).toBe(200);
    await seen({ ...fields(created.body), name: 'Renamed On Primary', bio: 'second' });

    expect((await primary.api(`/users/${id}/block`, { method: 'POST' })).status).toBe(201);
    await seen({ ...fields(created.body), name: 'Renamed On Primary', bio: 'second', state: 'blocked' });

    expect((await primary.api(`/users/${id}`, { method: 'DELETE' })).status).toBe(204);
    await seen(null);

    // The same username and email again, a new row (SQLite may even hand out the same id): the
    // secondaries must have dropped the old row and its namespace, or the unique indexes refuse it.
    const again = await primary.api('/users', { method: 'POST', body: { ...newUser({ bio: 'again' }), username: created.body.username, email: created.body.email } });
    expect(again.status, again.text).toBe(201);
    for (const secondary of [s1, s2]) {
      await waitFor(async () => (await secondary.api(`/users/${again.body.id}`)).body.bio === 'again', { message: `${secondary.name} sees the re-created user` });
    }
    await expectConverged(primary, s1);
    await expectConverged(primary, s2);
  });

  it('forwards a write sent to a secondary and answers only once that secondary applied it', async () => {
    const body = newUser({ bio: 'via secondary' });
    const created = await s1.api('/users', { method: 'POST', body });
    expect(created.status, created.text).toBe(201);
    expect(created.headers['x-geoforge-node']).toBe('primary');
    expect(created.headers['x-geoforge-replication']).toBe('applied');
    const eventId = Number(created.headers['x-geoforge-event-id']);
    expect(eventId).toBeGreaterThan(0);
    expect(String(created.headers['set-cookie'])).toContain(`_geoforge_geo_position=${eventId}`);
    const id = created.body.id as number;

    // The very next read on the same secondary is served locally and sees the write.
    const read = await s1.api(`/users/${id}`);
    expect(read.status).toBe(200);
    expect(read.headers['x-geoforge-node']).toBe('secondary-1');
    expect(read.body).toMatchObject({ id, username: body.username, bio: 'via secondary' });
    expect(primary.lastEventId()).toBeGreaterThanOrEqual(eventId);
    expect(s1.cursor()!.last_event_id).toBeGreaterThanOrEqual(eventId);

    const updated = await s1.api(`/users/${id}`, { method: 'PUT', body: { bio: 'updated via secondary' } });
    expect(updated.status).toBe(200);
    expect(updated.headers['x-geoforge-node']).toBe('primary');
    expect((await s1.api(`/users/${id}`)).body.bio).toBe('updated via secondary');

    // Another secondary, given the position, waits for it (or asks the primary) rather than answer stale.
    const position = String(updated.headers['x-geoforge-event-id']);
    const elsewhere = await s2.api(`/users/${id}`, { headers: { 'x-geoforge-min-event-id': position } });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.bio).toBe('updated via secondary');
    const byCookie = await s2.api(`/users/${id}`, { headers: { cookie: `_geoforge_geo_position=${position}` } });
    expect(byCookie.body.bio).toBe('updated via secondary');
    expect(byCookie.headers['x-geoforge-node']).toBe('secondary-2');
    // A position this site cannot reach in time: after the bounded wait the read goes to the primary.
    const ahead = await s2.api(`/users/${id}`, { headers: { cookie: `_geoforge_geo_position=${Number(position) + 1_000_000}` } });
    expect(ahead.status).toBe(200);
    expect(ahead.headers['x-geoforge-node']).toBe('primary');
    expect(ahead.body.bio).toBe('updated via secondary');

    const deleted = await s1.api(`/users/${id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect(deleted.headers['x-geoforge-node']).toBe('primary');
    expect((await s1.api(`/users/${id}`)).status).toBe(404);
    expect((await primary.api(`/users/${id}`)).status).toBe(404);
  });

  it('reports each secondary status to the primary, with its cursor moving after writes', async () => {
    for (const secondary of [s1, s2]) {
      await waitFor(async () => (await statusOf(primary, secondary.name))?.cursor_last_event_id != null, { message: `${secondary.name} reported` });
    }
    const before = await statusOf(primary, s1.name);
    for (let i = 0; i < 3; i++) expect((await primary.api('/users', { method: 'POST', body: newUser() })).status).toBe(201);
    const target = primary.lastEventId();
    expect(target).toBeGreaterThan(before!.cursor_last_event_id);
    for (const secondary of [s1, s2]) {
      const status = await waitFor(
        async () => {
          const status = await statusOf(primary, secondary.name);
          return status && status.cursor_last_event_id >= target ? status : null;
        },
        { message: `${secondary.name} reports cursor ${target}` },
      );
      expect(status).toMatchObject({ healthy: true, health_status: 'Healthy' });
      expect(status.last_event_id).toBeGreaterThanOrEqual(status.cursor_last_event_id);
      expect(typeof status.db_replication_lag_seconds).toBe('number');
      expect(status.db_replication_lag_seconds).toBeGreaterThanOrEqual(0);
      expect(status.cursor_last_event_timestamp).toBeGreaterThanOrEqual(before!.cursor_last_event_timestamp ?? 0);
    }
  });

  it('serves the geo_nodes API on a secondary, with current naming the site that answers', async () => {
    const nodes = await s1.api('/geo_nodes');
    expect(nodes.status).toBe(200);
    const byName = Object.fromEntries(nodes.body.map((node: { name: string }) => [node.name, node]));
    expect(byName[primary.name]).toMatchObject({ primary: true, current: false, enabled: true, clone_protocol: 'http' });
    expect(byName[s1.name]).toMatchObject({ primary: false, current: true, url: s1.url });
    expect(byName[s2.name]).toMatchObject({ primary: false, current: false });
    for (const node of nodes.body) {
      expect(typeof node.id).toBe('number');
      expect(typeof node.files_max_capacity).toBe('number');
      expect(typeof node.repos_max_capacity).toBe('number');
    }

    // The secondary's own status is live: its cursor is the one it holds right now.
    const own = await s1.api(`/geo_nodes/${byName[s1.name].id}/status`);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ geo_node_id: byName[s1.name].id, healthy: true, health: 'Healthy', health_status: 'Healthy' });
    const cursor = s1.openReadOnly();
    try {
      const held = cursor.prepare('SELECT last_event_id FROM geo_cursor').pluck().get() as number;
      expect(own.body.cursor_last_event_id).toBeGreaterThanOrEqual(held - 5);
    } finally {
      cursor.close();
    }
    for (const field of ['db_replication_lag_seconds', 'last_event_id', 'last_event_timestamp', 'cursor_last_event_id', 'cursor_last_event_timestamp', 'last_successful_status_check_timestamp']) {
      expect(Number.isInteger(own.body[field]), field).toBe(true);
    }
    expect(own.body.repositories_synced_in_percentage).toMatch(/^\d+\.\d{2}%$/);

    const all = await s1.api('/geo_nodes/status');
    expect(all.body.map((status: { geo_node_id: number }) => status.geo_node_id).sort()).toEqual([byName[s1.name].id, byName[s2.name].id].sort());
    expect(await s1.api('/geo_nodes/current/failures')).toMatchObject({ status: 200, body: [] });
    expect((await primary.api('/geo_nodes/current/failures')).status).toBe(403);
    expect((await s1.api('/geo_nodes', { as: null })).status).toBe(401);
  });

  it('converges exactly, applying no event twice, after a secondary is SIGKILLed during a burst of 1,000 writes', async () => {
    await expectConverged(primary, s1);
    await expectConverged(primary, s2);
    // Count, on each secondary, every INSERT/UPDATE its applier makes on users. Upserts carry whole
    // rows, so an in-order replay would leave equal rows; this count would still differ. The audit
    // lives in the secondary's file, so it also proves the restart resumed (a re-bootstrap drops it).
    const auditFrom = new Map<SiteProcess, number>();
    for (const secondary of [s1, s2]) auditFrom.set(secondary, installApplyAudit(secondary));

    // 8 workers, each cycling one user through create, update, custom attribute, block, update,
    // delete (every other cycle keeps its user); a re-applied stale insert would resurrect a
    // deleted row. Every 10th write goes through secondary-2 and is forwarded.
    const TOTAL = 1000;
    const cycle = ['create', 'update', 'attribute', 'block', 'update', 'delete'] as const;
    const state = Array.from({ length: 8 }, () => ({ step: 0, userId: 0, cycles: 0, bio: '' }));
    let done = 0;
    let restarted: Promise<void> | null = null;
    let cursorAtKill = 0;
    const failures: string[] = [];
    const started = Date.now();
    await runConcurrently(TOTAL, 8, async (index, worker) => {
      const mine = state[worker];
      const site = index % 10 === 9 ? s2 : primary;
      let op = cycle[mine.step % cycle.length];
      if (op === 'delete' && mine.cycles % 2 === 1) op = 'update';
      let response;
      if (op === 'create') {
        response = await site.api('/users', { method: 'POST', body: newUser() });
        mine.userId = response.body.id;
      } else if (op === 'update') {
        mine.bio += 'x';
        response = await site.api(`/users/${mine.userId}`, { method: 'PUT', body: { bio: mine.bio, location: `loc-${index}` } });
      } else if (op === 'attribute') {
        response = await site.api(`/users/${mine.userId}/custom_attributes/burst`, { method: 'PUT', body: { value: `v${index}` } });
      } else if (op === 'block') {
        response = await site.api(`/users/${mine.userId}/block`, { method: 'POST' });
      } else {
        response = await site.api(`/users/${mine.userId}`, { method: 'DELETE' });
      }
      if (response.status >= 300) failures.push(`${op} via ${site.name}: ${response.status} ${response.text}`);
      mine.step++;
      if (mine.step % cycle.length === 0) {
        // A kept user stays as it is; the next cycle starts from a fresh one.
        mine.cycles++;
        mine.bio = '';
      }
      done++;
      if (done === 300) {
        await s1.kill('SIGKILL');
        cursorAtKill = s1.cursor()!.last_event_id;
      }
      if (done === 600) {
        restarted = s1.start();
        restarted.catch(() => undefined); // awaited (and its failure reported) after the burst
      }
    });
    const burstMs = Date.now() - started;
    expect(failures).toEqual([]);
    await restarted;
    expect(s1.output).toMatch(/signal SIGKILL/);
    // It died part-way: some of the burst applied, the rest still to come after the restart.
    expect(cursorAtKill).toBeGreaterThan(auditFrom.get(s1)!);
    expect(cursorAtKill).toBeLessThan(primary.lastEventId());

    const last = await expectConverged(primary, s1, 20_000);
    await expectConverged(primary, s2, 20_000);
    for (const secondary of [s1, s2]) {
      const db = secondary.openReadOnly();
      const primaryDb = primary.openReadOnly();
      try {
        const hasAudit = db.prepare('SELECT 1 FROM sqlite_schema WHERE name = ?').get(AUDIT);
        expect(hasAudit, `${secondary.name} kept its file (resumed from its cursor, no re-bootstrap)`).toBeTruthy();
        const cursor = db.prepare('SELECT last_event_id FROM geo_cursor').pluck().get() as number;
        const applied = db.prepare(`SELECT count(*) FROM ${AUDIT}`).pluck().get() as number;
        const events = primaryDb
          .prepare("SELECT count(*) FROM geo_event_log WHERE table_name = 'users' AND op = 'upsert' AND id > ? AND id <= ?")
          .pluck()
          .get(auditFrom.get(secondary), cursor) as number;
        expect(cursor).toBeGreaterThanOrEqual(last);
        expect(events).toBeGreaterThan(300);
        expect(applied, `${secondary.name}: user rows written by the applier vs user upsert events`).toBe(events);
      } finally {
        db.close();
        primaryDb.close();
      }
    }
    console.info(`burst of ${TOTAL} writes took ${burstMs} ms`);
  }, 60_000);

  it('answers a write on a secondary with 503 while the primary is down, and takes writes again once it is back', async () => {
    await primary.kill('SIGTERM');
    const refused = await s1.api('/users', { method: 'POST', body: newUser() });
    expect(refused.status).toBe(503);
    expect(refused.body.message).toMatch(/503 Service Unavailable - the primary site cannot be reached/);
    expect(refused.headers['x-geoforge-node']).toBe('secondary-1');
    // Reads are still served locally.
    expect((await s1.api('/users?per_page=1')).status).toBe(200);

    await primary.start();
    const body = newUser();
    const created = await waitFor(
      async () => {
        const response = await s1.api('/users', { method: 'POST', body });
        if (response.status === 503) return null;
        return response;
      },
      { timeoutMs: 15_000, message: 'write through secondary-1 after the primary came back' },
    );
    expect(created.status).toBe(201);
    await waitFor(async () => (await s1.api(`/users/${created.body.id}`)).status === 200, { timeoutMs: 15_000 });
  });
});

/**
 * Adds the audit table and triggers to a secondary's file in one write transaction and returns the
 * cursor at that moment: every users upsert event after it must produce exactly one audit row.
 */
function installApplyAudit(site: SiteProcess): number {
  const db = new Database(site.dbFile);
  db.pragma('busy_timeout = 10000');
  try {
    return db
      .transaction(() => {
        db.exec(`
          CREATE TABLE ${AUDIT} (id INTEGER PRIMARY KEY, op TEXT NOT NULL, row_id INTEGER NOT NULL);
          CREATE TRIGGER ${AUDIT}_insert AFTER INSERT ON users BEGIN INSERT INTO ${AUDIT} (op, row_id) VALUES ('insert', NEW.id); END;
          CREATE TRIGGER ${AUDIT}_update AFTER UPDATE ON users BEGIN INSERT INTO ${AUDIT} (op, row_id) VALUES ('update', NEW.id); END;
        `);
        return db.prepare('SELECT last_event_id FROM geo_cursor WHERE id = 1').pluck().get() as number;
      })
      .immediate();
  } finally {
    db.close();
  }
}
