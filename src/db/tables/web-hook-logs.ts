import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

/** One delivery attempt of a webhook (site-local: only the primary delivers). */
export interface WebHookLogRow {
  id: number;
  /** The project hook, or null for a group hook's attempt. */
  hook_id: number | null;
  /** The group hook (ee), or null for another hook's attempt. */
  group_hook_id: number | null;
  /** The system hook, or null for another hook's attempt. */
  system_hook_id: number | null;
  event: string;
  url: string;
  attempt: number;
  /** JSON object of the headers sent, the token redacted. */
  request_headers: string;
  request_body: string;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
  duration_ms: number;
  created_at: string;
}

/**
 * Records one attempt. Returns false when the hook was deleted while the attempt ran (its log went
 * with it, ON DELETE CASCADE), which is the one failure safe to drop.
 */
export function insertWebHookLog(db: Db, row: Omit<WebHookLogRow, 'id'>): boolean {
  const result = prepare(
    db,
    `INSERT INTO web_hook_logs (hook_id, group_hook_id, system_hook_id, event, url, attempt, request_headers, request_body, response_status, response_body, error, duration_ms, created_at)
     SELECT @hook_id, @group_hook_id, @system_hook_id, @event, @url, @attempt, @request_headers, @request_body, @response_status, @response_body, @error, @duration_ms, @created_at
     WHERE EXISTS (SELECT 1 FROM project_hooks WHERE id = @hook_id) OR EXISTS (SELECT 1 FROM group_hooks WHERE id = @group_hook_id)
       OR EXISTS (SELECT 1 FROM system_hooks WHERE id = @system_hook_id)`,
  ).run(row);
  return result.changes === 1;
}

/** Deletes attempts logged before `before` (ISO time); returns how many. */
export function pruneWebHookLogs(db: Db, before: string): number {
  return prepare(db, 'DELETE FROM web_hook_logs WHERE created_at < ?').run(before).changes;
}
