import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import type { UserRow } from './users.js';

/** The assignees of each issue, in the order they were assigned (the first is GitLab's deprecated `assignee`). */
export function assigneesOfIssues(db: Db, issueIds: readonly number[]): Map<number, UserRow[]> {
  const out = new Map<number, UserRow[]>();
  if (!issueIds.length) return out;
  const rows = prepare(
    db,
    `SELECT a.issue_id AS assigned_issue_id, u.* FROM issue_assignees a JOIN users u ON u.id = a.user_id
     WHERE a.issue_id IN (SELECT value FROM json_each(?)) ORDER BY a.id`,
  ).all(JSON.stringify(issueIds)) as (UserRow & { assigned_issue_id: number })[];
  for (const { assigned_issue_id: issueId, ...user } of rows) {
    const list = out.get(issueId);
    if (list) list.push(user);
    else out.set(issueId, [user]);
  }
  return out;
}

/** The assignee ids of each of these issues (the issue read rule of a page). */
export function assigneeIdsOfIssues(db: Db, issueIds: readonly number[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  if (!issueIds.length) return out;
  const rows = prepare(db, 'SELECT issue_id, user_id FROM issue_assignees WHERE issue_id IN (SELECT value FROM json_each(?)) ORDER BY id').all(JSON.stringify(issueIds)) as {
    issue_id: number;
    user_id: number;
  }[];
  for (const row of rows) out.set(row.issue_id, [...(out.get(row.issue_id) ?? []), row.user_id]);
  return out;
}

export function assigneeIdsOf(db: Db, issueId: number): number[] {
  return prepare(db, 'SELECT user_id FROM issue_assignees WHERE issue_id = ? ORDER BY id').pluck().all(issueId) as number[];
}

/** Makes the issue's assignees exactly `userIds`, keeping the rows (and order) of those who stay. */
export function setIssueAssignees(db: Db, issueId: number, userIds: readonly number[]): void {
  prepare(db, 'DELETE FROM issue_assignees WHERE issue_id = ? AND user_id NOT IN (SELECT value FROM json_each(?))').run(issueId, JSON.stringify(userIds));
  const insert = prepare(db, 'INSERT OR IGNORE INTO issue_assignees (issue_id, user_id) VALUES (?, ?)');
  for (const userId of userIds) insert.run(issueId, userId);
}
