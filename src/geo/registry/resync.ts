import type { Db } from '../../db/connection.js';
import { inTransaction, prepare } from '../../db/connection.js';
import { notFound } from '../../errors.js';
import type { BlobType } from '../blobs.js';
import { ITEM_COLUMNS, type RegistryItem } from './queue.js';

/**
 * Pending again now, its retry count starting over: a new version, so a sync in flight ends
 * pending too and the workers take the item at their next claim (`geoforge geo resync`).
 */
const RESYNC = "version = version + 1, retry_at = NULL, retry_count = 0, state = CASE WHEN state = 'started' THEN state ELSE 'pending' END";

/** One item of this secondary's registry; 404 when the registry has no such item. */
export function registryItem(db: Db, type: BlobType, itemId: number): RegistryItem {
  const item = prepare(db, `SELECT ${ITEM_COLUMNS} FROM geo_registry WHERE item_type = ? AND item_id = ?`).get(type, itemId) as RegistryItem | undefined;
  if (!item) throw notFound('Registry item');
  return item;
}

/** Marks one item for resync; returns its registry id. */
export function resyncItem(db: Db, type: BlobType, itemId: number): number {
  return inTransaction(db, () => {
    const item = registryItem(db, type, itemId);
    prepare(db, `UPDATE geo_registry SET ${RESYNC} WHERE id = ? AND to_delete = 0`).run(item.id);
    return item.id;
  });
}

/** Marks every failed item (of `type`, when given) for resync; returns their registry ids, oldest first. */
export function resyncFailed(db: Db, type?: BlobType): number[] {
  return inTransaction(db, () => {
    const ids = (
      type
        ? prepare(db, "SELECT id FROM geo_registry WHERE item_type = ? AND state = 'failed' ORDER BY id").pluck().all(type)
        : prepare(db, "SELECT id FROM geo_registry WHERE state = 'failed' ORDER BY id").pluck().all()
    ) as number[];
    const mark = prepare(db, `UPDATE geo_registry SET ${RESYNC} WHERE id = ?`);
    for (const id of ids) mark.run(id);
    return ids;
  });
}

/** How many of the registry rows `ids` are in each state (a resync's progress); a row gone counts as `deleted`. */
export function registryStates(db: Db, ids: readonly number[]): Record<'pending' | 'started' | 'synced' | 'failed' | 'deleted', number> {
  const counts = { pending: 0, started: 0, synced: 0, failed: 0, deleted: 0 };
  const CHUNK = 500;
  for (let start = 0; start < ids.length; start += CHUNK) {
    const chunk = ids.slice(start, start + CHUNK);
    const rows = prepare(db, `SELECT state, count(*) AS n FROM geo_registry WHERE id IN (${chunk.map(() => '?').join(', ')}) GROUP BY state`).all(...chunk) as { state: keyof typeof counts; n: number }[];
    let found = 0;
    for (const row of rows) {
      counts[row.state] += row.n;
      found += row.n;
    }
    counts.deleted += chunk.length - found;
  }
  return counts;
}

/** The failed item whose failure is oldest (by its last attempt), with its reason; null when none failed. */
export function oldestFailure(db: Db): { type: BlobType; item_id: number; failure_type: string | null; reason: string | null; retry_count: number; failed_at: number | null; retry_at: number | null } | null {
  const row = prepare(
    db,
    `SELECT item_type AS type, item_id, failure_type, last_sync_failure AS reason, retry_count, last_synced_at AS failed_at, retry_at
     FROM geo_registry WHERE state = 'failed' ORDER BY coalesce(last_synced_at, 0), id LIMIT 1`,
  ).get() as ReturnType<typeof oldestFailure> | undefined;
  return row ?? null;
}
