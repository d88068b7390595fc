import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

/** An issue closed or reopened (GitLab's ResourceStateEvent). */
export interface ResourceStateEventRow {
  id: number;
  issue_id: number | null;
  merge_request_id: number | null;
  user_id: number | null;
  state: 'opened' | 'closed' | 'reopened' | 'merged' | 'locked';
  created_at: string;
}

export function insertResourceStateEvent(db: Db, event: Omit<ResourceStateEventRow, 'id' | 'merge_request_id'>): number {
  return Number(
    prepare(db, 'INSERT INTO resource_state_events (issue_id, user_id, state, created_at) VALUES (@issue_id, @user_id, @state, @created_at)').run(event).lastInsertRowid,
  );
}

/** A page of an issue's state events, oldest first (index resource_state_events_issue). */
export function issueStateEventsPage(db: Db, issueId: number, page: Page): Paged<ResourceStateEventRow> {
  return selectPage<ResourceStateEventRow>(db, '*', 'FROM resource_state_events WHERE issue_id = ?', 'id', [issueId], page);
}

export function findIssueStateEvent(db: Db, issueId: number, id: number): ResourceStateEventRow | undefined {
  return prepare(db, 'SELECT * FROM resource_state_events WHERE id = ? AND issue_id = ?').get(id, issueId) as ResourceStateEventRow | undefined;
}

/** Copies an issue's state events onto another issue (a moved issue keeps its history). */
export function copyIssueStateEvents(db: Db, fromIssueId: number, toIssueId: number): void {
  prepare(db, 'INSERT INTO resource_state_events (issue_id, user_id, state, created_at) SELECT ?, user_id, state, created_at FROM resource_state_events WHERE issue_id = ? ORDER BY id').run(
    toIssueId,
    fromIssueId,
  );
}
