import Database from 'better-sqlite3';
import { rename, rm } from 'node:fs/promises';
import { syncCaptureTriggers } from '../../db/capture.js';
import { migrate } from '../../db/migrate.js';
import { bootstrapSnapshotPaths } from '../../storage/layout.js';
import type { PrimaryClient } from './primary-client.js';

/**
 * Downloads the primary's snapshot and prepares it as this secondary's database, next to the
 * live file: capture triggers dropped, cursor set to the snapshot's last event. Returns the path
 * of the ready file; swapping it in is the caller's (it owns the open connection).
 */
export async function prepareSnapshot(client: PrimaryClient, dataDir: string): Promise<{ file: string; lastEventId: number; epoch: number }> {
  const { part, file } = bootstrapSnapshotPaths(dataDir);
  // A run killed while the part was open leaves its WAL behind: SQLite would replay that WAL onto
  // the next download (a malformed database), so the part goes with its WAL and shared memory.
  await removeDatabase(part);
  try {
    const { lastEventId, epoch } = await client.downloadSnapshot(part);
    const db = new Database(part);
    try {
      migrate(db);
      syncCaptureTriggers(db, false);
      db.prepare('DELETE FROM geo_cursor').run();
      db.prepare('INSERT INTO geo_cursor (id, last_event_id, last_event_at, bootstrapped_at) VALUES (1, ?, NULL, ?)').run(lastEventId, new Date().toISOString());
      db.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      db.close();
    }
    await rename(part, file);
    return { file, lastEventId, epoch };
  } catch (error) {
    await removeDatabase(part);
    throw error;
  }
}

/** A database file with the WAL, shared-memory and rollback journal files SQLite keeps beside it. */
async function removeDatabase(file: string): Promise<void> {
  for (const suffix of ['', '-wal', '-shm', '-journal']) await rm(`${file}${suffix}`, { force: true });
}

/**
 * Replaces the database file with a prepared snapshot. The old connection must be closed first;
 * its WAL and shared-memory files go too, or SQLite would replay them onto the new file.
 */
export async function swapInSnapshot(prepared: string, live: string): Promise<void> {
  await rm(`${live}-wal`, { force: true });
  await rm(`${live}-shm`, { force: true });
  await rename(prepared, live);
}
