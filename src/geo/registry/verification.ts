import type { Db } from '../../db/connection.js';
import { prepare } from '../../db/connection.js';
import { ITEM_COLUMNS, type RegistryItem } from './queue.js';
import { nextRetryAt, type RetryPolicy } from '../../backoff.js';

/** Synced items last verified before `before`, oldest first. */
export function itemsDueForVerification(db: Db, before: number, limit: number): RegistryItem[] {
  return prepare(db, `SELECT ${ITEM_COLUMNS} FROM geo_registry WHERE state = 'synced' AND verified_at < ? ORDER BY verified_at LIMIT ?`).all(before, limit) as RegistryItem[];
}

/** Recorded only while the item is still the synced copy that was checked (no sync or event since). */
export function markVerified(db: Db, item: RegistryItem, now: number): void {
  prepare(db, "UPDATE geo_registry SET verified_at = ? WHERE id = ? AND version = ? AND state = 'synced'").run(now, item.id, item.version);
}

/** The local copy no longer matches what was synced: failed (verification), so the workers fetch it again. */
export function markVerificationFailed(db: Db, item: RegistryItem, message: string, now: number, policy: RetryPolicy): boolean {
  return (
    prepare(
      db,
      `UPDATE geo_registry SET state = 'failed', failure_type = 'verification', last_sync_failure = ?, retry_count = retry_count + 1, retry_at = ?, verified_at = ?
       WHERE id = ? AND version = ? AND state = 'synced'`,
    ).run(message, nextRetryAt(item.retry_count, now, policy), now, item.id, item.version).changes === 1
  );
}
