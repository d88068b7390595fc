import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connection.js';
import { migrate } from '../../src/db/migrate.js';
import { prepareSnapshot } from '../../src/geo/agent/bootstrap.js';
import type { PrimaryClient } from '../../src/geo/agent/primary-client.js';
import { bootstrapSnapshotPaths } from '../../src/storage/layout.js';

/**
 * A secondary SIGKILLed while it prepared a downloaded snapshot leaves the part's WAL beside it
 * (the primary's snapshot keeps WAL mode in its header). The next bootstrap must not let SQLite
 * replay that WAL onto the new download: the crash soak found secondaries with a malformed database.
 */
describe('prepareSnapshot', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'geoforge-bootstrap-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prepares a sound database even when a killed run left a WAL beside the part', async () => {
    // The primary's snapshot: a migrated database in WAL mode, checkpointed, with a row to find.
    const source = path.join(dir, 'primary.sqlite');
    const primary = openDatabase(source);
    migrate(primary);
    primary.exec("CREATE TABLE probe (v TEXT); INSERT INTO probe VALUES ('snap')");
    primary.pragma('wal_checkpoint(TRUNCATE)');
    primary.close();

    // What a killed run leaves: the WAL of another database, full of frames, named after the part.
    const { part, file } = bootstrapSnapshotPaths(dir);
    const other = openDatabase(path.join(dir, 'other.sqlite'));
    other.pragma('wal_autocheckpoint = 0');
    migrate(other);
    other.exec('CREATE TABLE probe (v TEXT)');
    const insert = other.prepare('INSERT INTO probe VALUES (?)');
    for (let n = 0; n < 2000; n++) insert.run(`stale${n}`.repeat(20));
    await copyFile(path.join(dir, 'other.sqlite-wal'), `${part}-wal`);
    other.close();

    const client = { downloadSnapshot: async (target: string) => (await copyFile(source, target), { lastEventId: 7, epoch: 0 }) } as unknown as PrimaryClient;
    const prepared = await prepareSnapshot(client, dir);
    expect(prepared).toEqual({ file, lastEventId: 7, epoch: 0 });
    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(db.prepare('SELECT v FROM probe').pluck().all()).toEqual(['snap']);
      expect(db.prepare('SELECT last_event_id FROM geo_cursor').pluck().get()).toBe(7);
    } finally {
      db.close();
    }
  });
});
