import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

export type MergeRequestDiffState = 'collected' | 'overflow' | 'empty' | 'without_files';

/** One diff version of a merge request (GitLab's merge_request_diffs). */
export interface MergeRequestDiffRow {
  id: number;
  merge_request_id: number;
  state: MergeRequestDiffState;
  base_commit_sha: string | null;
  start_commit_sha: string | null;
  head_commit_sha: string | null;
  real_size: string | null;
  commits_count: number;
  files_count: number;
  created_at: string;
  updated_at: string;
}

export interface MergeRequestDiffCommitRow {
  id: number;
  merge_request_diff_id: number;
  relative_order: number;
  sha: string;
  parent_ids: string;
  author_name: string | null;
  author_email: string | null;
  authored_date: string | null;
  committer_name: string | null;
  committer_email: string | null;
  committed_date: string | null;
  message: string;
}

export interface MergeRequestDiffFileRow {
  id: number;
  merge_request_diff_id: number;
  relative_order: number;
  new_file: number;
  renamed_file: number;
  deleted_file: number;
  too_large: number;
  collapsed: number;
  binary: number;
  a_mode: string;
  b_mode: string;
  old_path: string;
  new_path: string;
  diff: string;
}

export function insertMergeRequestDiff(db: Db, row: Omit<MergeRequestDiffRow, 'id'>): number {
  return Number(
    prepare(
      db,
      `INSERT INTO merge_request_diffs (merge_request_id, state, base_commit_sha, start_commit_sha, head_commit_sha, real_size, commits_count, files_count, created_at, updated_at)
       VALUES (@merge_request_id, @state, @base_commit_sha, @start_commit_sha, @head_commit_sha, @real_size, @commits_count, @files_count, @created_at, @updated_at)`,
    ).run(row).lastInsertRowid,
  );
}

export function insertMergeRequestDiffCommit(db: Db, row: Omit<MergeRequestDiffCommitRow, 'id'>): void {
  prepare(
    db,
    `INSERT INTO merge_request_diff_commits (merge_request_diff_id, relative_order, sha, parent_ids, author_name, author_email, authored_date, committer_name, committer_email, committed_date, message)
     VALUES (@merge_request_diff_id, @relative_order, @sha, @parent_ids, @author_name, @author_email, @authored_date, @committer_name, @committer_email, @committed_date, @message)`,
  ).run(row);
}

export function insertMergeRequestDiffFile(db: Db, row: Omit<MergeRequestDiffFileRow, 'id'>): void {
  prepare(
    db,
    `INSERT INTO merge_request_diff_files (merge_request_diff_id, relative_order, new_file, renamed_file, deleted_file, too_large, collapsed, binary, a_mode, b_mode, old_path, new_path, diff)
     VALUES (@merge_request_diff_id, @relative_order, @new_file, @renamed_file, @deleted_file, @too_large, @collapsed, @binary, @a_mode, @b_mode, @old_path, @new_path, @diff)`,
  ).run(row);
}

export function findMergeRequestDiff(db: Db, mergeRequestId: number, id: number): MergeRequestDiffRow | undefined {
  return prepare(db, 'SELECT * FROM merge_request_diffs WHERE merge_request_id = ? AND id = ?').get(mergeRequestId, id) as MergeRequestDiffRow | undefined;
}

export function findMergeRequestDiffById(db: Db, id: number): MergeRequestDiffRow | undefined {
  return prepare(db, 'SELECT * FROM merge_request_diffs WHERE id = ?').get(id) as MergeRequestDiffRow | undefined;
}

/** A merge request's versions, newest first (index merge_request_diffs_merge_request). */
export function mergeRequestDiffsOf(db: Db, mergeRequestId: number, limit: number, offset: number): MergeRequestDiffRow[] {
  return prepare(db, 'SELECT * FROM merge_request_diffs WHERE merge_request_id = ? ORDER BY id DESC LIMIT ? OFFSET ?').all(mergeRequestId, limit, offset) as MergeRequestDiffRow[];
}

export function countMergeRequestDiffs(db: Db, mergeRequestId: number): number {
  return prepare(db, 'SELECT count(*) FROM merge_request_diffs WHERE merge_request_id = ?').pluck().get(mergeRequestId) as number;
}

/** A version's commits, newest first. */
export function diffCommitsOf(db: Db, diffId: number, limit = -1, offset = 0): MergeRequestDiffCommitRow[] {
  return prepare(db, 'SELECT * FROM merge_request_diff_commits WHERE merge_request_diff_id = ? ORDER BY relative_order LIMIT ? OFFSET ?').all(diffId, limit, offset) as MergeRequestDiffCommitRow[];
}

/** A version's files, in git's order. */
export function diffFilesOf(db: Db, diffId: number): MergeRequestDiffFileRow[] {
  return prepare(db, 'SELECT * FROM merge_request_diff_files WHERE merge_request_diff_id = ? ORDER BY relative_order').all(diffId) as MergeRequestDiffFileRow[];
}

/** One page of a version's files, in git's order (GET .../diffs). */
export function diffFilesPage(db: Db, diffId: number, limit: number, offset: number): MergeRequestDiffFileRow[] {
  return prepare(db, 'SELECT * FROM merge_request_diff_files WHERE merge_request_diff_id = ? ORDER BY relative_order LIMIT ? OFFSET ?').all(diffId, limit, offset) as MergeRequestDiffFileRow[];
}
