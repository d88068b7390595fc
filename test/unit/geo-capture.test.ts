import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { replicatedTables, syncCaptureTriggers } from '../../src/db/capture.js';
import { migrate } from '../../src/db/migrate.js';
import { appendHeartbeat, eventsAfterJson, lastEventId, logPosition, pruneEvents } from '../../src/geo/event-log.js';
import { Applier, GapError, readCursor } from '../../src/geo/agent/applier.js';
import type { WireEvent } from '../../src/geo/agent/primary-client.js';
import { removeUserRecord } from '../../src/services/users/delete-user.js';
import { createUser, updateUser } from '../../src/services/users/users.js';

function site(capture: boolean) {
  const db = new Database(':memory:');
  db.pragma('foreign_keys = ON');
  migrate(db);
  syncCaptureTriggers(db, capture);
  return db;
}

const eventsOf = (db: Database.Database, after = 0) => JSON.parse(eventsAfterJson(db, after, 100_000).json) as WireEvent[];

describe('change capture and apply', () => {
  it('captures every replicated table but no site-local one', () => {
    const tables = [...replicatedTables(site(true)).keys()];
    expect(tables).toEqual(expect.arrayContaining(['users', 'ssh_keys', 'personal_access_tokens', 'geo_nodes', 'namespaces']));
    expect(tables).not.toEqual(expect.arrayContaining(['geo_event_log']));
    expect(tables.some((name) => ['schema_migrations', 'geo_cursor', 'geo_event_log'].includes(name))).toBe(false);
  });

  it('changes the schema at a boot only when the triggers differ from what the schema needs', () => {
    const db = site(true);
    const schemaVersion = () => db.pragma('schema_version', { simple: true });
    const triggers = () => db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY name").all();
    const [version, before] = [schemaVersion(), triggers()];
    syncCaptureTriggers(db, true);
    expect(schemaVersion()).toBe(version);
    // A column added by a migration: only that table's triggers are made again, and they capture it.
    db.exec('ALTER TABLE labels ADD COLUMN extra TEXT');
    syncCaptureTriggers(db, true);
    const changed = triggers().filter((row) => !before.some((old) => JSON.stringify(old) === JSON.stringify(row))) as { name: string; sql: string }[];
    expect(changed.map((row) => row.name).sort()).toEqual(['geo_capture_labels_insert', 'geo_capture_labels_update']);
    expect(changed.every((row) => row.sql.includes("'extra', NEW.\"extra\""))).toBe(true);
    syncCaptureTriggers(db, false);
    expect(triggers().filter((row: any) => /^(geo_capture_|system_hook_)/.test(row.name))).toEqual([]);
  });

  it('logs a row per change in the writing transaction, none for a rolled-back one', async () => {
    const primary = site(true);
    const user = await createUser(primary, { username: 'alice', email: 'a@example.com', name: 'Alice' });
    const before = lastEventId(primary);
    expect(() =>
      primary.transaction(() => {
        primary.prepare("UPDATE users SET name = 'x' WHERE id = ?").run(user.id);
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    expect(lastEventId(primary)).toBe(before);
    const events = eventsOf(primary);
    expect(events.map((event) => event[0])).toEqual(events.map((_, index) => index + 1));
    expect(events.map((event) => [event[3], event[4]])).toEqual([
      ['users', 'upsert'],
      ['namespaces', 'upsert'],
    ]);
  });

  it('replays the log into an identical database, refusing gaps', async () => {
    const primary = site(true);
    const alice = await createUser(primary, { username: 'alice', email: 'a@example.com', name: 'Alice' });
    const bob = await createUser(primary, { username: 'bob', email: 'b@example.com', name: 'Bob' });
    await updateUser(primary, alice.id, { name: 'Alice Renamed', username: 'alice2' });
    // Unindexed columns only, then an indexed column changed in case only (a NOCASE index): both must arrive.
    await updateUser(primary, alice.id, { bio: 'Only the bio' });
    await updateUser(primary, alice.id, { username: 'Alice2' });
    removeUserRecord(primary, bob.id, { hardDelete: false });
    appendHeartbeat(primary);

    const secondary = site(false);
    secondary.prepare("INSERT INTO geo_cursor (id, last_event_id, bootstrapped_at) VALUES (1, 0, 'now')").run();
    const applier = new Applier(secondary);
    const events = eventsOf(primary);
    expect(() => applier.apply(events.slice(1))).toThrow(GapError);
    applier.apply(events.slice(0, 3));
    applier.apply(events.slice(3));
    expect(() => applier.apply(events.slice(3, 4))).toThrow(GapError);

    for (const table of ['users', 'namespaces']) {
      expect(secondary.prepare(`SELECT * FROM ${table} ORDER BY id`).all()).toEqual(primary.prepare(`SELECT * FROM ${table} ORDER BY id`).all());
    }
    expect(readCursor(secondary)).toMatchObject({ lastEventId: lastEventId(primary) });
    // A secondary has no capture triggers, so applying wrote no events of its own.
    expect(lastEventId(secondary)).toBe(0);
  });

  it('prunes by cursor, keeps a minimum, and caps by age', () => {
    const db = site(true);
    for (let i = 0; i < 10; i++) appendHeartbeat(db, 1_000 + i);
    expect(pruneEvents(db, { throughId: 8, keepMin: 5, retainSinceMs: 0 })).toBe(5);
    expect(logPosition(db)).toMatchObject({ lastEventId: 10, oldestEventId: 6 });
    expect(pruneEvents(db, { throughId: 0, keepMin: 5, retainSinceMs: 1_008 })).toBe(3);
    expect(logPosition(db)).toMatchObject({ lastEventId: 10, oldestEventId: 9 });
    expect(appendHeartbeat(db)).toBe(11);
  });
});
