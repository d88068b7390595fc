import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

/** One user's approval of one merge request (ee). */
export interface MergeRequestApprovalRow {
  id: number;
  merge_request_id: number;
  user_id: number;
  created_at: string;
  updated_at: string;
}

/** A merge request's approvals, oldest first (GitLab lists approved_by in approval order). */
export function approvalsOf(db: Db, mergeRequestId: number): MergeRequestApprovalRow[] {
  return prepare(db, 'SELECT * FROM merge_request_approvals WHERE merge_request_id = ? ORDER BY id').all(mergeRequestId) as MergeRequestApprovalRow[];
}

export function hasApproved(db: Db, mergeRequestId: number, userId: number): boolean {
  return prepare(db, 'SELECT 1 FROM merge_request_approvals WHERE merge_request_id = ? AND user_id = ?').get(mergeRequestId, userId) !== undefined;
}

export function insertApproval(db: Db, mergeRequestId: number, userId: number, now: string): void {
  prepare(db, 'INSERT INTO merge_request_approvals (merge_request_id, user_id, created_at, updated_at) VALUES (?, ?, ?, ?)').run(mergeRequestId, userId, now, now);
}

/** Removes one user's approval; false when there was none. */
export function deleteApproval(db: Db, mergeRequestId: number, userId: number): boolean {
  return prepare(db, 'DELETE FROM merge_request_approvals WHERE merge_request_id = ? AND user_id = ?').run(mergeRequestId, userId).changes > 0;
}

/** Removes every approval of a merge request (a push when the project resets approvals on push); the number removed. */
export function deleteApprovalsOf(db: Db, mergeRequestId: number): number {
  return prepare(db, 'DELETE FROM merge_request_approvals WHERE merge_request_id = ?').run(mergeRequestId).changes;
}

/** The suggested approvers (users) of a project or of one merge request, oldest first. */
export function approverUserIds(db: Db, targetType: 'Project' | 'MergeRequest', targetId: number): number[] {
  return prepare(db, 'SELECT user_id FROM approvers WHERE target_type = ? AND target_id = ? ORDER BY id').pluck().all(targetType, targetId) as number[];
}

/** A project's approval settings (ee): the columns migration 0013 added to projects, with approvals_before_merge. */
export interface ProjectApprovalSettingsRow {
  approvals_before_merge: number;
  reset_approvals_on_push: number;
  disable_overriding_approvers_per_merge_request: number;
  merge_requests_author_approval: number;
}

export function projectApprovalSettings(db: Db, projectId: number): ProjectApprovalSettingsRow {
  return prepare(
    db,
    'SELECT approvals_before_merge, reset_approvals_on_push, disable_overriding_approvers_per_merge_request, merge_requests_author_approval FROM projects WHERE id = ?',
  ).get(projectId) as ProjectApprovalSettingsRow;
}

export function updateProjectApprovalSettings(db: Db, projectId: number, columns: Partial<ProjectApprovalSettingsRow>): void {
  const names = Object.keys(columns).sort();
  if (!names.length) return;
  prepare(db, `UPDATE projects SET ${names.map((name) => `${name} = @${name}`).join(', ')} WHERE id = @id`).run({ ...columns, id: projectId });
}
