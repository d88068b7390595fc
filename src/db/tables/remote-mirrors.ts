import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

export type MirrorUpdateStatus = 'none' | 'scheduled' | 'started' | 'finished' | 'failed' | 'to_retry';

/** A push mirror of a project (migration 0029). `url` holds the credentials: never answer or log it as is. */
export interface RemoteMirrorRow {
  id: number;
  project_id: number;
  url: string;
  enabled: number;
  only_protected_branches: number;
  keep_divergent_refs: number;
  auth_method: string;
  mirror_branch_regex: string | null;
  update_status: MirrorUpdateStatus;
  last_update_at: string | null;
  last_update_started_at: string | null;
  last_successful_update_at: string | null;
  last_error: string | null;
  next_attempt_at: number | null;
  failures: number;
  created_at: string;
  updated_at: string;
}

/** The settings a create or an update writes. */
export type RemoteMirrorSettings = Pick<RemoteMirrorRow, 'enabled' | 'only_protected_branches' | 'keep_divergent_refs' | 'auth_method' | 'mirror_branch_regex'>;

export function findRemoteMirrorRow(db: Db, id: number): RemoteMirrorRow | undefined {
  return prepare(db, 'SELECT * FROM remote_mirrors WHERE id = ?').get(id) as RemoteMirrorRow | undefined;
}

export function listRemoteMirrorRows(db: Db, projectId: number, page: Page): Paged<RemoteMirrorRow> {
  return selectPage(db, '*', 'FROM remote_mirrors WHERE project_id = ?', 'id', [projectId], page);
}

export function insertRemoteMirrorRow(db: Db, projectId: number, url: string, settings: RemoteMirrorSettings, now: string): number {
  const result = prepare(
    db,
    `INSERT INTO remote_mirrors (project_id, url, enabled, only_protected_branches, keep_divergent_refs, auth_method, mirror_branch_regex, created_at, updated_at)
     VALUES (@project_id, @url, @enabled, @only_protected_branches, @keep_divergent_refs, @auth_method, @mirror_branch_regex, @now, @now)`,
  ).run({ ...settings, project_id: projectId, url, now });
  return Number(result.lastInsertRowid);
}

export function updateRemoteMirrorSettings(db: Db, id: number, settings: RemoteMirrorSettings, now: string): void {
  prepare(
    db,
    `UPDATE remote_mirrors SET enabled = @enabled, only_protected_branches = @only_protected_branches, keep_divergent_refs = @keep_divergent_refs,
       auth_method = @auth_method, mirror_branch_regex = @mirror_branch_regex, updated_at = @now WHERE id = @id`,
  ).run({ ...settings, id, now });
}

export function deleteRemoteMirrorRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM remote_mirrors WHERE id = ?').run(id);
}

/**
 * Asks for an update of the mirrors (all enabled mirrors of the project, or one): due now. A mirror
 * being pushed keeps `started`; its worker sees the request when it finishes and runs again.
 */
export function scheduleRemoteMirrorRows(db: Db, where: { projectId: number } | { id: number }, now: number, nowText: string): number {
  const [condition, value] = 'id' in where ? ['id = ?', where.id] : ['project_id = ?', where.projectId];
  return prepare(
    db,
    `UPDATE remote_mirrors SET next_attempt_at = ?, failures = 0,
       update_status = CASE update_status WHEN 'started' THEN 'started' ELSE 'scheduled' END, updated_at = ?
     WHERE ${condition} AND enabled = 1`,
  ).run(now, nowText, value).changes;
}

/** Enabled mirrors due at `now`, oldest request first, leaving out those being pushed. */
export function selectDueRemoteMirrors(db: Db, now: number, inFlight: readonly number[], limit: number): RemoteMirrorRow[] {
  return prepare(
    db,
    `SELECT * FROM remote_mirrors WHERE next_attempt_at <= ? AND enabled = 1 AND id NOT IN (SELECT value FROM json_each(?))
     ORDER BY next_attempt_at, id LIMIT ?`,
  ).all(now, JSON.stringify(inFlight), limit) as RemoteMirrorRow[];
}

/** When the next enabled mirror not in flight falls due (epoch ms), or null. */
export function nextRemoteMirrorDueAt(db: Db, inFlight: readonly number[]): number | null {
  return prepare(db, 'SELECT min(next_attempt_at) FROM remote_mirrors WHERE enabled = 1 AND id NOT IN (SELECT value FROM json_each(?))')
    .pluck()
    .get(JSON.stringify(inFlight)) as number | null;
}

/** The worker takes a due mirror: `started`, and no longer due (a request meanwhile makes it due again). */
export function markRemoteMirrorStarted(db: Db, id: number, nowText: string): void {
  prepare(db, "UPDATE remote_mirrors SET update_status = 'started', next_attempt_at = NULL, last_update_started_at = ? WHERE id = ?").run(nowText, id);
}

/**
 * Records an attempt's outcome. Success: `finished`, failures reset. A failure: `to_retry` due at
 * `retryAt`, or `failed` when retryAt is null. Either way a request that came in while it ran
 * (next_attempt_at set again) keeps it `scheduled` and due.
 */
export function recordRemoteMirrorAttempt(
  db: Db,
  id: number,
  outcome: { readonly ok: boolean; readonly error: string | null; readonly retryAt: number | null },
  nowText: string,
): void {
  prepare(
    db,
    `UPDATE remote_mirrors SET
       update_status = CASE WHEN next_attempt_at IS NOT NULL THEN 'scheduled' WHEN @ok THEN 'finished' WHEN @retryAt IS NOT NULL THEN 'to_retry' ELSE 'failed' END,
       failures = CASE WHEN next_attempt_at IS NOT NULL OR @ok THEN 0 ELSE failures + 1 END,
       next_attempt_at = coalesce(next_attempt_at, @retryAt),
       last_error = @error,
       last_update_at = @now,
       last_successful_update_at = CASE WHEN @ok THEN @now ELSE last_successful_update_at END
     WHERE id = @id`,
  ).run({ id, ok: outcome.ok ? 1 : 0, error: outcome.error, retryAt: outcome.retryAt, now: nowText });
}

/** Mirrors left `started` by a crash or a stop: due again at once. */
export function requeueStartedRemoteMirrors(db: Db, now: number): number {
  return prepare(db, "UPDATE remote_mirrors SET update_status = 'scheduled', next_attempt_at = ? WHERE update_status = 'started' AND next_attempt_at IS NULL AND enabled = 1").run(now).changes;
}
