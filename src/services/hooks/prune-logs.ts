import type { Db } from '../../db/connection.js';
import { pruneWebHookLogs } from '../../db/tables/web-hook-logs.js';

/** Delivery attempts are kept this long (GitLab prunes its web_hook_logs after 90 days). */
const LOG_RETENTION_MS = 90 * 86_400_000;

/** Deletes the logged delivery attempts older than the retention; returns how many went. */
export function pruneHookLogs(db: Db, now = Date.now()): number {
  return pruneWebHookLogs(db, new Date(now - LOG_RETENTION_MS).toISOString());
}
