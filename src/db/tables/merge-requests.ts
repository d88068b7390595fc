import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

export type MergeRequestState = 'opened' | 'closed' | 'merged' | 'locked';
export type MergeStatus = 'unchecked' | 'checking' | 'can_be_merged' | 'cannot_be_merged' | 'cannot_be_merged_recheck';

export interface MergeRequestRow {
  id: number;
  target_project_id: number;
  iid: number;
  source_project_id: number | null;
  source_branch: string;
  target_branch: string;
  title: string;
  description: string | null;
  state: MergeRequestState;
  author_id: number;
  assignee_id: number | null;
  milestone_id: number | null;
  merge_status: MergeStatus;
  merge_status_source_sha: string | null;
  merge_status_target_sha: string | null;
  merge_error: string | null;
  head_sha: string | null;
  base_sha: string | null;
  start_sha: string | null;
  latest_merge_request_diff_id: number | null;
  merge_commit_sha: string | null;
  squash: number;
  squash_commit_sha: string | null;
  merge_ref_sha: string | null;
  rebase_commit_sha: string | null;
  rebase_in_progress: number;
  merge_when_pipeline_succeeds: number;
  merge_user_id: number | null;
  merge_params: string | null;
  head_pipeline_id: number | null;
  merged_by_id: number | null;
  merged_at: string | null;
  closed_by_id: number | null;
  closed_at: string | null;
  should_remove_source_branch: number | null;
  force_remove_source_branch: number;
  allow_maintainer_to_push: number;
  discussion_locked: number | null;
  approvals_before_merge: number | null;
  time_estimate: number;
  total_time_spent: number;
  last_edited_at: string | null;
  last_edited_by_id: number | null;
  lock_version: number;
  created_at: string;
  updated_at: string;
  /** When the first diff version was recorded (GitLab 16's `prepared_at`). */
  prepared_at: string | null;
  /** Not mergeable before this time (GitLab 17.8's scheduled merge). */
  merge_after: string | null;
}

/** Columns a write sets; id is assigned by SQLite. */
export type MergeRequestColumns = Partial<Omit<MergeRequestRow, 'id'>>;

export function findMergeRequestById(db: Db, id: number): MergeRequestRow | undefined {
  return prepare(db, 'SELECT * FROM merge_requests WHERE id = ?').get(id) as MergeRequestRow | undefined;
}

export function findMergeRequestByIid(db: Db, targetProjectId: number, iid: number): MergeRequestRow | undefined {
  return prepare(db, 'SELECT * FROM merge_requests WHERE target_project_id = ? AND iid = ?').get(targetProjectId, iid) as MergeRequestRow | undefined;
}

export function insertMergeRequest(
  db: Db,
  columns: MergeRequestColumns & Pick<MergeRequestRow, 'target_project_id' | 'iid' | 'source_branch' | 'target_branch' | 'title' | 'author_id' | 'created_at' | 'updated_at'>,
): number {
  const names = Object.keys(columns).sort();
  const sql = `INSERT INTO merge_requests (${names.join(', ')}) VALUES (${names.map((name) => `@${name}`).join(', ')})`;
  return Number(prepare(db, sql).run(columns).lastInsertRowid);
}

/** Writes columns and bumps lock_version. */
export function updateMergeRequestRow(db: Db, id: number, columns: MergeRequestColumns): void {
  const names = Object.keys(columns).filter((name) => name !== 'lock_version').sort();
  if (!names.length) return;
  const sets = names.map((name) => `${name} = @${name}`).join(', ');
  prepare(db, `UPDATE merge_requests SET ${sets}, lock_version = lock_version + 1 WHERE id = @id`).run({ ...columns, id });
}

/** Moves a project's merge_requests_count (every merge request it is the target of) by `delta`: create +1, delete -1. */
export function addMergeRequestsCount(db: Db, projectId: number, delta: number): void {
  prepare(db, 'UPDATE projects SET merge_requests_count = max(0, merge_requests_count + ?) WHERE id = ?').run(delta, projectId);
}

/** Moves updated_at only (a comment touches its merge request); lock_version stays, as no attribute changed. */
export function touchMergeRequest(db: Db, id: number, at: string): void {
  prepare(db, 'UPDATE merge_requests SET updated_at = ? WHERE id = ?').run(at, id);
}

/** Deletes the row; diffs, approvals and closing-issue links follow through foreign keys. */
export function deleteMergeRequestRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM merge_requests WHERE id = ?').run(id);
}

/** The open merge request of one source and target pair (the one a create would duplicate). */
export function findOpenMergeRequestForPair(db: Db, sourceProjectId: number, sourceBranch: string, targetProjectId: number, targetBranch: string): MergeRequestRow | undefined {
  return prepare(
    db,
    `SELECT * FROM merge_requests WHERE IFNULL(source_project_id, 0) = ? AND source_branch = ? AND target_project_id = ? AND target_branch = ? AND state = 'opened'`,
  ).get(sourceProjectId, sourceBranch, targetProjectId, targetBranch) as MergeRequestRow | undefined;
}

/** Open merge requests whose source is this branch of this project (index merge_requests_source_branch). */
export function openMergeRequestsFromBranch(db: Db, sourceProjectId: number, sourceBranch: string): MergeRequestRow[] {
  return prepare(db, "SELECT * FROM merge_requests WHERE source_project_id = ? AND source_branch = ? AND state = 'opened' ORDER BY id").all(sourceProjectId, sourceBranch) as MergeRequestRow[];
}

/** Open merge requests into this branch of this project (index merge_requests_target_branch). */
export function openMergeRequestsIntoBranch(db: Db, targetProjectId: number, targetBranch: string): MergeRequestRow[] {
  return prepare(db, "SELECT * FROM merge_requests WHERE target_project_id = ? AND target_branch = ? AND state = 'opened' ORDER BY id").all(targetProjectId, targetBranch) as MergeRequestRow[];
}

/** Merge requests by id, for a page's relations; missing ids are left out. */
export function mergeRequestsByIds(db: Db, ids: readonly number[]): MergeRequestRow[] {
  if (!ids.length) return [];
  return prepare(db, 'SELECT * FROM merge_requests WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify([...new Set(ids)])) as MergeRequestRow[];
}

/** The ids of a project's merge requests (as target or as source), for the polymorphic rows a project delete removes with them. */
export function mergeRequestIdsOfProject(db: Db, projectId: number): number[] {
  return prepare(db, 'SELECT id FROM merge_requests WHERE target_project_id = ?').pluck().all(projectId) as number[];
}

/** The merge requests a user wrote (index merge_requests_author_created), for a hard user delete. */
export function mergeRequestsAuthoredBy(db: Db, userId: number): MergeRequestRow[] {
  return prepare(db, 'SELECT * FROM merge_requests WHERE author_id = ?').all(userId) as MergeRequestRow[];
}

/** Hands the merge requests a user wrote to another (a deleted user's to the ghost user). */
export function moveMergeRequestsToAuthor(db: Db, fromUserId: number, toUserId: number): void {
  prepare(db, 'UPDATE merge_requests SET author_id = ? WHERE author_id = ?').run(toUserId, fromUserId);
}

/** Hands the merges and closes a user did to another (the ghost user keeps who merged). */
export function moveMergeRequestActorsTo(db: Db, fromUserId: number, toUserId: number): void {
  prepare(db, 'UPDATE merge_requests SET merged_by_id = ? WHERE merged_by_id = ?').run(toUserId, fromUserId);
  prepare(db, 'UPDATE merge_requests SET closed_by_id = ? WHERE closed_by_id = ?').run(toUserId, fromUserId);
}

/** A page of merge requests for a list built by the service (FROM/WHERE over `merge_requests m` and ORDER BY, with named parameters). */
export function mergeRequestPage(db: Db, fromWhere: string, order: string, params: Record<string, unknown>, limit: number, offset: number): MergeRequestRow[] {
  return prepare(db, `SELECT m.* ${fromWhere} ORDER BY ${order} LIMIT @limit OFFSET @offset`).all({ ...params, limit, offset }) as MergeRequestRow[];
}

/** Deletes the resource events and time logs of these merge requests (their merge_request_id columns have no foreign key). */
export function deleteMergeRequestResourceRows(db: Db, ids: readonly number[]): void {
  const list = JSON.stringify(ids);
  for (const table of ['resource_label_events', 'resource_milestone_events', 'resource_state_events', 'timelogs']) {
    prepare(db, `DELETE FROM ${table} WHERE merge_request_id IN (SELECT value FROM json_each(?))`).run(list);
  }
}

/**
 * A project's merge requests related to a commit, newest first (GitLab's MergeRequestsFinder
 * `commit_sha`): merged or squashed as it, or holding it in any of their diff versions.
 */
export function mergeRequestsOfCommitPage(db: Db, projectId: number, sha: string, state: MergeRequestState | undefined, limit: number, offset: number): { rows: MergeRequestRow[]; total: number } {
  const where = `FROM merge_requests m WHERE m.target_project_id = @projectId${state ? ' AND m.state = @state' : ''} AND (m.merge_commit_sha = @sha OR m.squash_commit_sha = @sha OR m.id IN (
    SELECT d.merge_request_id FROM merge_request_diff_commits c JOIN merge_request_diffs d ON d.id = c.merge_request_diff_id WHERE c.sha = @sha))`;
  const params = { projectId, sha, ...(state ? { state } : {}) };
  const rows = mergeRequestPage(db, where, 'm.created_at DESC, m.id DESC', params, limit, offset);
  return { rows, total: prepare(db, `SELECT count(*) ${where}`).pluck().get(params) as number };
}
