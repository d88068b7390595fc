import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

/** A label added to or removed from an issue (GitLab's ResourceLabelEvent); merge requests fill merge_request_id. */
export interface ResourceLabelEventRow {
  id: number;
  issue_id: number | null;
  merge_request_id: number | null;
  epic_id: number | null;
  label_id: number | null;
  user_id: number | null;
  action: 'add' | 'remove';
  created_at: string;
}

export function insertResourceLabelEvent(db: Db, event: Omit<ResourceLabelEventRow, 'id' | 'merge_request_id' | 'epic_id'>): number {
  return Number(
    prepare(db, 'INSERT INTO resource_label_events (issue_id, label_id, user_id, action, created_at) VALUES (@issue_id, @label_id, @user_id, @action, @created_at)').run(event)
      .lastInsertRowid,
  );
}

/** A page of an issue's label events, oldest first (index resource_label_events_issue). */
export function issueLabelEventsPage(db: Db, issueId: number, page: Page): Paged<ResourceLabelEventRow> {
  return selectPage<ResourceLabelEventRow>(db, '*', 'FROM resource_label_events WHERE issue_id = ?', 'id', [issueId], page);
}

export function findIssueLabelEvent(db: Db, issueId: number, id: number): ResourceLabelEventRow | undefined {
  return prepare(db, 'SELECT * FROM resource_label_events WHERE id = ? AND issue_id = ?').get(id, issueId) as ResourceLabelEventRow | undefined;
}

/** Copies an issue's label events onto another issue (a moved issue keeps its history). */
export function copyIssueLabelEvents(db: Db, fromIssueId: number, toIssueId: number): void {
  prepare(
    db,
    'INSERT INTO resource_label_events (issue_id, label_id, user_id, action, created_at) SELECT ?, label_id, user_id, action, created_at FROM resource_label_events WHERE issue_id = ? ORDER BY id',
  ).run(toIssueId, fromIssueId);
}
