import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import type { Page } from '../page.js';

export interface IssueRow {
  id: number;
  project_id: number;
  iid: number;
  title: string;
  description: string | null;
  state: 'opened' | 'closed';
  author_id: number;
  milestone_id: number | null;
  confidential: number;
  discussion_locked: number | null;
  due_date: string | null;
  weight: number | null;
  relative_position: number | null;
  time_estimate: number;
  total_time_spent: number;
  closed_at: string | null;
  closed_by_id: number | null;
  moved_to_id: number | null;
  created_at: string;
  updated_at: string;
}

/** Columns a write sets; id is assigned by SQLite. */
export type IssueColumns = Partial<Omit<IssueRow, 'id'>>;

export function findIssueById(db: Db, id: number): IssueRow | undefined {
  return prepare(db, 'SELECT * FROM issues WHERE id = ?').get(id) as IssueRow | undefined;
}

export function findIssueByIid(db: Db, projectId: number, iid: number): IssueRow | undefined {
  return prepare(db, 'SELECT * FROM issues WHERE project_id = ? AND iid = ?').get(projectId, iid) as IssueRow | undefined;
}

export function insertIssue(db: Db, columns: IssueColumns & Pick<IssueRow, 'project_id' | 'iid' | 'title' | 'author_id' | 'created_at' | 'updated_at'>): number {
  const names = Object.keys(columns).sort();
  const sql = `INSERT INTO issues (${names.join(', ')}) VALUES (${names.map((name) => `@${name}`).join(', ')})`;
  return Number(prepare(db, sql).run(columns).lastInsertRowid);
}

export function updateIssueRow(db: Db, id: number, columns: IssueColumns): void {
  const names = Object.keys(columns).sort();
  if (!names.length) return;
  prepare(db, `UPDATE issues SET ${names.map((name) => `${name} = @${name}`).join(', ')} WHERE id = @id`).run({ ...columns, id });
}

/** Deletes the row; assignees, resource events and time logs follow through foreign keys. */
export function deleteIssueRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM issues WHERE id = ?').run(id);
}

/** The ids of a project's issues, for the polymorphic rows a project delete must remove with them. */
export function issueIdsOfProject(db: Db, projectId: number): number[] {
  return prepare(db, 'SELECT id FROM issues WHERE project_id = ?').pluck().all(projectId) as number[];
}

/** The issues a user wrote (index issues_author), for a hard user delete. */
export function issuesAuthoredBy(db: Db, userId: number): IssueRow[] {
  return prepare(db, 'SELECT * FROM issues WHERE author_id = ?').all(userId) as IssueRow[];
}

/** Hands the issues a user wrote to another (a deleted user's to the ghost user). */
export function moveIssuesToAuthor(db: Db, fromUserId: number, toUserId: number): void {
  prepare(db, 'UPDATE issues SET author_id = ? WHERE author_id = ?').run(toUserId, fromUserId);
}

/** Issues by id, for a page's relations or a user's list; missing ids are left out. */
export function issuesByIds(db: Db, ids: readonly number[]): IssueRow[] {
  if (!ids.length) return [];
  return prepare(db, 'SELECT * FROM issues WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids)) as IssueRow[];
}

/**
 * Moves a project's open_issues_count by `delta` (GitLab's counter cache, kept by every write that
 * opens, closes, moves, deletes or changes the confidentiality of an issue).
 */
export function addOpenIssuesCount(db: Db, projectId: number, delta: number): void {
  if (delta === 0) return;
  prepare(db, 'UPDATE projects SET open_issues_count = max(0, open_issues_count + ?) WHERE id = ?').run(delta, projectId);
}

/** Clears a deleted milestone from its issues, so the change is a captured write rather than a silent foreign key action. */
export function clearMilestoneOfIssues(db: Db, milestoneId: number): void {
  prepare(db, 'UPDATE issues SET milestone_id = NULL WHERE milestone_id = ?').run(milestoneId);
}

/** Points every issue of one milestone at another (a promotion merges project milestones into the group's). */
export function moveIssuesToMilestone(db: Db, fromMilestoneId: number, toMilestoneId: number): void {
  prepare(db, 'UPDATE issues SET milestone_id = ? WHERE milestone_id = ?').run(toMilestoneId, fromMilestoneId);
}

/** One page of issues `i` of a list the issue services built (`fromWhere` names its parameters). */
export function issuePage(db: Db, fromWhere: string, order: string, params: Record<string, unknown>, page: Page): IssueRow[] {
  return prepare(db, `SELECT i.* ${fromWhere} ORDER BY ${order} LIMIT @limit OFFSET @offset`).all({ ...params, limit: page.perPage, offset: page.offset }) as IssueRow[];
}

/** The issues a milestone is set on (index issues_milestone). */
export function issuesWithMilestone(db: Db, milestoneId: number): IssueRow[] {
  return prepare(db, 'SELECT * FROM issues WHERE milestone_id = ? ORDER BY id').all(milestoneId) as IssueRow[];
}
