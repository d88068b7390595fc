import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import type { UserRow } from './users.js';

/** A reviewer of a merge request: GitLab 17's MergeRequestReviewer, its state `unreviewed` until reviewed. */
export interface MergeRequestReviewerRow {
  id: number;
  merge_request_id: number;
  user_id: number;
  state: string;
  created_at: string;
}

/** The reviewers of each merge request, in the order they were asked, with their users. */
export function reviewersOfMergeRequests(db: Db, mergeRequestIds: readonly number[]): Map<number, { reviewer: MergeRequestReviewerRow; user: UserRow }[]> {
  const out = new Map<number, { reviewer: MergeRequestReviewerRow; user: UserRow }[]>();
  if (!mergeRequestIds.length) return out;
  const rows = prepare(
    db,
    `SELECT r.id AS r_id, r.merge_request_id AS r_merge_request_id, r.state AS r_state, r.created_at AS r_created_at, u.*
     FROM merge_request_reviewers r JOIN users u ON u.id = r.user_id
     WHERE r.merge_request_id IN (SELECT value FROM json_each(?)) ORDER BY r.id`,
  ).all(JSON.stringify(mergeRequestIds)) as (UserRow & { r_id: number; r_merge_request_id: number; r_state: string; r_created_at: string })[];
  for (const { r_id, r_merge_request_id, r_state, r_created_at, ...user } of rows) {
    const reviewer = { id: r_id, merge_request_id: r_merge_request_id, user_id: user.id, state: r_state, created_at: r_created_at };
    out.set(r_merge_request_id, [...(out.get(r_merge_request_id) ?? []), { reviewer, user }]);
  }
  return out;
}

export function reviewerIdsOf(db: Db, mergeRequestId: number): number[] {
  return prepare(db, 'SELECT user_id FROM merge_request_reviewers WHERE merge_request_id = ? ORDER BY id').pluck().all(mergeRequestId) as number[];
}

/** Makes the reviewers exactly `userIds`, keeping the rows (state, order) of those who stay; returns the ids added. */
export function setMergeRequestReviewers(db: Db, mergeRequestId: number, userIds: readonly number[], now: string): number[] {
  const before = new Set(reviewerIdsOf(db, mergeRequestId));
  prepare(db, 'DELETE FROM merge_request_reviewers WHERE merge_request_id = ? AND user_id NOT IN (SELECT value FROM json_each(?))').run(mergeRequestId, JSON.stringify(userIds));
  const insert = prepare(db, 'INSERT OR IGNORE INTO merge_request_reviewers (merge_request_id, user_id, created_at) VALUES (?, ?, ?)');
  for (const userId of userIds) insert.run(mergeRequestId, userId, now);
  return userIds.filter((id) => !before.has(id));
}
