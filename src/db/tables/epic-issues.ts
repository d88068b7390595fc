import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

export interface EpicIssueRow {
  id: number;
  epic_id: number;
  issue_id: number;
  relative_position: number;
  created_at: string;
  updated_at: string;
}

export function findEpicIssueById(db: Db, id: number): EpicIssueRow | undefined {
  return prepare(db, 'SELECT * FROM epic_issues WHERE id = ?').get(id) as EpicIssueRow | undefined;
}

/** The association of an issue, in whichever epic (an issue is in at most one). */
export function findEpicIssueOfIssue(db: Db, issueId: number): EpicIssueRow | undefined {
  return prepare(db, 'SELECT * FROM epic_issues WHERE issue_id = ?').get(issueId) as EpicIssueRow | undefined;
}

/** The epic's associations in order (index epic_issues_epic_position). */
export function epicIssuesInOrder(db: Db, epicId: number): EpicIssueRow[] {
  return prepare(db, 'SELECT * FROM epic_issues WHERE epic_id = ? ORDER BY relative_position, id').all(epicId) as EpicIssueRow[];
}

/** The caller's visibility rule for issues `i` of projects `p`, as SQL with its named parameters. */
type Readable = { readonly sql: string; readonly params: Record<string, unknown> };

const readableInEpic = (readable: Readable) =>
  `FROM epic_issues ei JOIN issues i ON i.id = ei.issue_id JOIN projects p ON p.id = i.project_id WHERE ei.epic_id = @epic_id AND ${readable.sql}`;
const EPIC_ORDER = 'ei.relative_position, ei.id';

/** The epic's associations in order whose issues pass `readable`: one query whatever the epic's size. */
export function readableEpicIssuesInOrder(db: Db, epicId: number, readable: Readable): EpicIssueRow[] {
  return prepare(db, `SELECT ei.* ${readableInEpic(readable)} ORDER BY ${EPIC_ORDER}`).all({ ...readable.params, epic_id: epicId }) as EpicIssueRow[];
}

/** One page of those associations, in the same order, and their total (index epic_issues_epic_position). */
export function readableEpicIssuesPage(db: Db, epicId: number, readable: Readable, page: Page): Paged<EpicIssueRow> {
  return selectPage(db, 'ei.*', readableInEpic(readable), EPIC_ORDER, [{ ...readable.params, epic_id: epicId }], page);
}

/** The largest position in the epic, null when it has no issue. */
export function maxEpicPosition(db: Db, epicId: number): number | null {
  return prepare(db, 'SELECT max(relative_position) FROM epic_issues WHERE epic_id = ?').pluck().get(epicId) as number | null;
}

export function insertEpicIssue(db: Db, row: Omit<EpicIssueRow, 'id'>): number {
  return Number(
    prepare(db, 'INSERT INTO epic_issues (epic_id, issue_id, relative_position, created_at, updated_at) VALUES (@epic_id, @issue_id, @relative_position, @created_at, @updated_at)').run(row)
      .lastInsertRowid,
  );
}

export function setEpicIssuePosition(db: Db, id: number, position: number, now: string): void {
  prepare(db, 'UPDATE epic_issues SET relative_position = ?, updated_at = ? WHERE id = ?').run(position, now, id);
}

export function deleteEpicIssueRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM epic_issues WHERE id = ?').run(id);
}

/** Points an association at another issue (the copy a move made). */
export function setEpicIssueIssue(db: Db, id: number, issueId: number, now: string): void {
  prepare(db, 'UPDATE epic_issues SET issue_id = ?, updated_at = ? WHERE id = ?').run(issueId, now, id);
}

/** The associations of a project's issues in epics of groups other than these (index epic_issues_issue, one pass over the project's issues). */
export function epicIssueIdsOfProjectOutside(db: Db, projectId: number, groupIds: readonly number[]): number[] {
  return prepare(
    db,
    `SELECT ei.id FROM issues i JOIN epic_issues ei ON ei.issue_id = i.id JOIN epics e ON e.id = ei.epic_id
     WHERE i.project_id = ? AND e.group_id NOT IN (SELECT value FROM json_each(?))`,
  )
    .pluck()
    .all(projectId, JSON.stringify(groupIds)) as number[];
}
