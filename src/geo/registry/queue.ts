import type { Db } from '../../db/connection.js';
import { inTransaction, prepare } from '../../db/connection.js';
import type { BlobType } from '../blobs.js';
import { nextRetryAt, type RetryPolicy } from '../../backoff.js';

export type FailureType = 'sync' | 'verification' | 'checksum_mismatch';

/** A registry row as the sync workers need it. */
export interface RegistryItem {
  readonly id: number;
  readonly item_type: BlobType;
  readonly item_id: number;
  readonly project_id: number | null;
  readonly path: string;
  readonly to_delete: 0 | 1;
  readonly version: number;
  readonly expected_checksum: string | null;
  readonly checksum: string | null;
  readonly retry_count: number;
  readonly missing_on_primary: 0 | 1;
  readonly event_at: number | null;
}

export const ITEM_COLUMNS = 'id, item_type, item_id, project_id, path, to_delete, version, expected_checksum, checksum, retry_count, missing_on_primary, event_at';
const inList = (types: readonly BlobType[]) => types.map((type) => `'${type}'`).join(', ');

/**
 * Up to `limit` due items of `types`: pending ones first, oldest first (pending rows keep retry_at
 * NULL, so the (state, retry_at) index walks them in id order), then failed ones whose retry time
 * has come, earliest first. Selecting changes nothing: markStarted records the sync once it runs.
 */
export function dueItems(db: Db, types: readonly BlobType[], limit: number, now: number): RegistryItem[] {
  if (limit <= 0) return [];
  const kinds = inList(types);
  // Asked first through the (item_type, state) index: the ordered walk below would otherwise pass
  // every pending item of the other class to find none of these.
  const anyPending = prepare(db, `SELECT EXISTS (SELECT 1 FROM geo_registry WHERE item_type IN (${kinds}) AND state = 'pending')`).pluck().get() === 1;
  const pending = anyPending
    ? (prepare(db, `SELECT ${ITEM_COLUMNS} FROM geo_registry WHERE state = 'pending' AND retry_at IS NULL AND item_type IN (${kinds}) ORDER BY id LIMIT ?`).all(limit) as RegistryItem[])
    : [];
  if (pending.length === limit) return pending;
  const retries = prepare(db, `SELECT ${ITEM_COLUMNS} FROM geo_registry WHERE state = 'failed' AND retry_at <= ? AND item_type IN (${kinds}) ORDER BY retry_at LIMIT ?`).all(
    now,
    limit - pending.length,
  ) as RegistryItem[];
  return [...pending, ...retries];
}

/** A sync of the item began: `started` until its outcome is recorded (or a crash leaves it for sweepStarted). */
export function markStarted(db: Db, item: RegistryItem, now: number): void {
  prepare(db, "UPDATE geo_registry SET state = 'started', started_at = ? WHERE id = ? AND state IN ('pending', 'failed')").run(now, item.id);
}

/**
 * A sync ended well. Only when no event moved the item meanwhile (same version): otherwise it goes
 * back to pending, so any number of events during one sync cost exactly one more sync.
 */
export function finishSynced(db: Db, item: RegistryItem, checksum: string | null, now: number): 'synced' | 'superseded' {
  return inTransaction(db, () => {
    const done = prepare(
      db,
      `UPDATE geo_registry SET state = 'synced', checksum = ?, retry_count = 0, retry_at = NULL, failure_type = NULL, last_sync_failure = NULL,
         missing_on_primary = 0, event_at = NULL, last_synced_at = ?, last_successful_sync_at = ?, verified_at = ?
       WHERE id = ? AND version = ? AND state = 'started'`,
    ).run(checksum, now, now, now, item.id, item.version);
    if (done.changes === 1) return 'synced';
    backToPending(db, item.id);
    return 'superseded';
  });
}

export interface SyncFailureRecord {
  readonly failureType: FailureType;
  readonly message: string;
  readonly missingOnPrimary: boolean;
}

/**
 * A sync failed: retry_count + 1, the real error text, and the next try after an exponential
 * backoff (the longer policy when the primary does not have the item). Superseded like finishSynced.
 */
export function finishFailed(db: Db, item: RegistryItem, failure: SyncFailureRecord, now: number, policy: RetryPolicy): 'failed' | 'superseded' {
  return inTransaction(db, () => {
    const done = prepare(
      db,
      `UPDATE geo_registry SET state = 'failed', retry_count = retry_count + 1, retry_at = ?, failure_type = ?, last_sync_failure = ?,
         missing_on_primary = ?, last_synced_at = ?
       WHERE id = ? AND version = ? AND state = 'started'`,
    ).run(nextRetryAt(item.retry_count, now, policy), failure.failureType, failure.message.slice(0, 2000), failure.missingOnPrimary ? 1 : 0, now, item.id, item.version);
    if (done.changes === 1) return 'failed';
    backToPending(db, item.id);
    return 'superseded';
  });
}

/** A sync that was interrupted (the site stopping or swapping its database): pending again, no retry counted. */
export function releaseItem(db: Db, item: RegistryItem): void {
  backToPending(db, item.id);
}

function backToPending(db: Db, id: number): void {
  prepare(db, "UPDATE geo_registry SET state = 'pending', retry_at = NULL WHERE id = ? AND state = 'started'").run(id);
}

/** The local copy of a deleted item is gone: drop its row, unless an event revived the item meanwhile. */
export function removeItem(db: Db, item: RegistryItem): 'deleted' | 'superseded' {
  return inTransaction(db, () => {
    if (prepare(db, "DELETE FROM geo_registry WHERE id = ? AND version = ? AND state = 'started'").run(item.id, item.version).changes === 1) return 'deleted';
    backToPending(db, item.id);
    return 'superseded';
  });
}

/**
 * Whether a live item (not being deleted) of the same project uses the deleted item's path: a job
 * artifact replaced by one of the same name is a delete and a create of one file, and the delete
 * must not take the new copy with it.
 */
export function pathInUse(db: Db, item: RegistryItem): boolean {
  return prepare(db, 'SELECT EXISTS (SELECT 1 FROM geo_registry WHERE project_id IS ? AND path = ? AND id != ? AND to_delete = 0)').pluck().get(item.project_id, item.path, item.id) === 1;
}

/** At start nothing is in flight: items a crash left `started` become pending again. */
export function sweepStarted(db: Db): number {
  return prepare(db, "UPDATE geo_registry SET state = 'pending', retry_at = NULL WHERE state = 'started'").run().changes;
}

/** A repair: every failed item is tried again now, its retry count starting over. */
export function resetFailed(db: Db): number {
  return prepare(db, "UPDATE geo_registry SET state = 'pending', retry_at = NULL, retry_count = 0, version = version + 1 WHERE state = 'failed'").run().changes;
}
