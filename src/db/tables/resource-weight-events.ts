import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

/** An issue's weight set, changed or removed (GitLab's ResourceWeightEvent); `weight` is the new value. */
export interface ResourceWeightEventRow {
  id: number;
  issue_id: number;
  user_id: number | null;
  weight: number | null;
  created_at: string;
}

export function insertResourceWeightEvent(db: Db, event: Omit<ResourceWeightEventRow, 'id'>): number {
  return Number(
    prepare(db, 'INSERT INTO resource_weight_events (issue_id, user_id, weight, created_at) VALUES (@issue_id, @user_id, @weight, @created_at)').run(event).lastInsertRowid,
  );
}

/** A page of an issue's weight events, oldest first (index resource_weight_events_issue). */
export function issueWeightEventsPage(db: Db, issueId: number, page: Page): Paged<ResourceWeightEventRow> {
  return selectPage<ResourceWeightEventRow>(db, '*', 'FROM resource_weight_events WHERE issue_id = ?', 'id', [issueId], page);
}

export function findIssueWeightEvent(db: Db, issueId: number, id: number): ResourceWeightEventRow | undefined {
  return prepare(db, 'SELECT * FROM resource_weight_events WHERE id = ? AND issue_id = ?').get(id, issueId) as ResourceWeightEventRow | undefined;
}

/** Copies an issue's weight events onto another issue (a moved issue keeps its history). */
export function copyIssueWeightEvents(db: Db, fromIssueId: number, toIssueId: number): void {
  prepare(db, 'INSERT INTO resource_weight_events (issue_id, user_id, weight, created_at) SELECT ?, user_id, weight, created_at FROM resource_weight_events WHERE issue_id = ? ORDER BY id').run(
    toIssueId,
    fromIssueId,
  );
}
