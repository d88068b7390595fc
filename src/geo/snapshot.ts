import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../db/connection.js';
import { LOCAL_TABLES } from '../db/local-tables.js';

/**
 * A consistent copy of the database made with SQLite's online backup (writers go on meanwhile),
 * with the last event id it contains. The copy drops the rows of every site-local table but the
 * migration record: a secondary needs only the events after the snapshot, and must not inherit
 * the primary's webhook queue or delivery log.
 */
export async function createSnapshot(db: Db, dir: string): Promise<{ file: string; lastEventId: number }> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `snapshot-${randomUUID()}.sqlite`);
  try {
    await db.backup(file);
    const copy = new Database(file);
    try {
      const lastEventId = (copy.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'geo_event_log'").pluck().get() as number | undefined) ?? 0;
      for (const table of LOCAL_TABLES) if (table !== 'schema_migrations') copy.exec(`DELETE FROM "${table}"`);
      copy.pragma('wal_checkpoint(TRUNCATE)');
      return { file, lastEventId };
    } finally {
      copy.close();
    }
  } catch (error) {
    await rm(file, { force: true });
    throw new Error('create database snapshot', { cause: error });
  }
}
