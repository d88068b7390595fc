import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

/** Makes the issues a merge request would close exactly `issueIds` (its cached closing references). */
export function replaceClosingIssues(db: Db, mergeRequestId: number, issueIds: readonly number[], now: string): void {
  const wanted = JSON.stringify([...new Set(issueIds)]);
  prepare(db, 'DELETE FROM merge_requests_closing_issues WHERE merge_request_id = ? AND issue_id NOT IN (SELECT value FROM json_each(?))').run(mergeRequestId, wanted);
  prepare(
    db,
    `INSERT INTO merge_requests_closing_issues (merge_request_id, issue_id, created_at, updated_at)
     SELECT ?, value, ?, ? FROM json_each(?) WHERE true ON CONFLICT (merge_request_id, issue_id) DO NOTHING`,
  ).run(mergeRequestId, now, now, wanted);
}

/** The ids of the issues a merge request would close, in the order they were linked. */
export function closingIssueIdsOf(db: Db, mergeRequestId: number): number[] {
  return prepare(db, 'SELECT issue_id FROM merge_requests_closing_issues WHERE merge_request_id = ? ORDER BY id').pluck().all(mergeRequestId) as number[];
}

/** The ids of the merge requests that would close an issue (index merge_requests_closing_issues_issue). */
export function mergeRequestIdsClosing(db: Db, issueId: number): number[] {
  return prepare(db, 'SELECT merge_request_id FROM merge_requests_closing_issues WHERE issue_id = ? ORDER BY merge_request_id').pluck().all(issueId) as number[];
}
