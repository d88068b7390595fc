import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

export interface TimelogRow {
  id: number;
  issue_id: number | null;
  merge_request_id: number | null;
  user_id: number | null;
  time_spent: number;
  spent_at: string;
  created_at: string;
}

export function insertIssueTimelog(db: Db, issueId: number, userId: number, seconds: number, spentAt: string, now: string): void {
  prepare(db, 'INSERT INTO timelogs (issue_id, user_id, time_spent, spent_at, created_at) VALUES (?, ?, ?, ?, ?)').run(issueId, userId, seconds, spentAt, now);
}

/** The issue's time logs, oldest first (a moved issue takes copies along). */
export function timelogsOfIssue(db: Db, issueId: number): TimelogRow[] {
  return prepare(db, 'SELECT * FROM timelogs WHERE issue_id = ? ORDER BY id').all(issueId) as TimelogRow[];
}

export function copyTimelogToIssue(db: Db, log: TimelogRow, issueId: number): void {
  prepare(db, 'INSERT INTO timelogs (issue_id, user_id, time_spent, spent_at, created_at) VALUES (?, ?, ?, ?, ?)').run(issueId, log.user_id, log.time_spent, log.spent_at, log.created_at);
}

/** GitLab's reset: the logs go, so the total they add up to is 0. */
export function deleteIssueTimelogs(db: Db, issueId: number): void {
  prepare(db, 'DELETE FROM timelogs WHERE issue_id = ?').run(issueId);
}

export function insertMergeRequestTimelog(db: Db, mergeRequestId: number, userId: number, seconds: number, now: string): void {
  prepare(db, 'INSERT INTO timelogs (merge_request_id, user_id, time_spent, spent_at, created_at) VALUES (?, ?, ?, ?, ?)').run(mergeRequestId, userId, seconds, now, now);
}

/** A merge request's reset: its logs go. */
export function deleteMergeRequestTimelogs(db: Db, mergeRequestId: number): void {
  prepare(db, 'DELETE FROM timelogs WHERE merge_request_id = ?').run(mergeRequestId);
}
