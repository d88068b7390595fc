import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

/** A delivery waiting for its next attempt, with the hook's current target (re-read at every attempt). */
export interface DueDeliveryRow {
  id: number;
  /** The project hook, or null when the delivery is a group hook's. */
  hook_id: number | null;
  /** The group hook (ee), or null when the delivery is another hook's. */
  group_hook_id: number | null;
  /** The system hook, or null when the delivery is another hook's. */
  system_hook_id: number | null;
  event: string;
  body: string;
  attempts: number;
  url: string;
  token: string | null;
  enable_ssl_verification: number;
}

/** Which hook a delivery calls: a project hook, a group hook or a system hook, exactly one. */
export type HookTarget =
  | { readonly hook_id: number; readonly group_hook_id?: null; readonly system_hook_id?: null }
  | { readonly hook_id?: null; readonly group_hook_id: number; readonly system_hook_id?: null }
  | { readonly hook_id?: null; readonly group_hook_id?: null; readonly system_hook_id: number };

export function insertQueuedDelivery(db: Db, row: HookTarget & { event: string; body: string; next_attempt_at: number; created_at: string }): void {
  prepare(
    db,
    `INSERT INTO web_hook_queue (hook_id, group_hook_id, system_hook_id, event, body, next_attempt_at, created_at)
     VALUES (@hook_id, @group_hook_id, @system_hook_id, @event, @body, @next_attempt_at, @created_at)`,
  ).run({ ...row, hook_id: row.hook_id ?? null, group_hook_id: row.group_hook_id ?? null, system_hook_id: row.system_hook_id ?? null });
}

/** Up to `limit` deliveries due at `now`, oldest first, leaving out those already in flight. */
export function selectDueDeliveries(db: Db, now: number, inFlight: readonly number[], limit: number): DueDeliveryRow[] {
  return prepare(
    db,
    `SELECT q.id, q.hook_id, q.group_hook_id, q.system_hook_id, q.event, q.body, q.attempts,
       coalesce(h.url, g.url, s.url) AS url,
       coalesce(h.token, g.token, s.token) AS token,
       coalesce(h.enable_ssl_verification, g.enable_ssl_verification, s.enable_ssl_verification) AS enable_ssl_verification
     FROM web_hook_queue q LEFT JOIN project_hooks h ON h.id = q.hook_id LEFT JOIN group_hooks g ON g.id = q.group_hook_id
       LEFT JOIN system_hooks s ON s.id = q.system_hook_id
     WHERE q.next_attempt_at <= ? AND (h.id IS NOT NULL OR g.id IS NOT NULL OR s.id IS NOT NULL) AND q.id NOT IN (SELECT value FROM json_each(?))
     ORDER BY q.next_attempt_at, q.id LIMIT ?`,
  ).all(now, JSON.stringify(inFlight), limit) as DueDeliveryRow[];
}

/** When the next delivery not in flight falls due (epoch ms), or null when none waits. */
export function nextDueAt(db: Db, inFlight: readonly number[]): number | null {
  return prepare(db, 'SELECT min(next_attempt_at) FROM web_hook_queue WHERE id NOT IN (SELECT value FROM json_each(?))')
    .pluck()
    .get(JSON.stringify(inFlight)) as number | null;
}

export function rescheduleDelivery(db: Db, id: number, attempts: number, nextAttemptAt: number): void {
  prepare(db, 'UPDATE web_hook_queue SET attempts = ?, next_attempt_at = ? WHERE id = ?').run(attempts, nextAttemptAt, id);
}

export function deleteQueuedDelivery(db: Db, id: number): void {
  prepare(db, 'DELETE FROM web_hook_queue WHERE id = ?').run(id);
}
