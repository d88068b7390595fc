import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

/** A milestone set on or taken off an issue (GitLab's ResourceMilestoneEvent), with the issue's state then. */
export interface ResourceMilestoneEventRow {
  id: number;
  issue_id: number | null;
  merge_request_id: number | null;
  milestone_id: number | null;
  user_id: number | null;
  action: 'add' | 'remove';
  state: 'opened' | 'closed' | 'merged' | 'locked';
  created_at: string;
}

export function insertResourceMilestoneEvent(db: Db, event: Omit<ResourceMilestoneEventRow, 'id' | 'merge_request_id'>): number {
  return Number(
    prepare(
      db,
      'INSERT INTO resource_milestone_events (issue_id, milestone_id, user_id, action, state, created_at) VALUES (@issue_id, @milestone_id, @user_id, @action, @state, @created_at)',
    ).run(event).lastInsertRowid,
  );
}

/** A page of an issue's milestone events, oldest first (index resource_milestone_events_issue). */
export function issueMilestoneEventsPage(db: Db, issueId: number, page: Page): Paged<ResourceMilestoneEventRow> {
  return selectPage<ResourceMilestoneEventRow>(db, '*', 'FROM resource_milestone_events WHERE issue_id = ?', 'id', [issueId], page);
}

export function findIssueMilestoneEvent(db: Db, issueId: number, id: number): ResourceMilestoneEventRow | undefined {
  return prepare(db, 'SELECT * FROM resource_milestone_events WHERE id = ? AND issue_id = ?').get(id, issueId) as ResourceMilestoneEventRow | undefined;
}

/** Copies an issue's milestone events onto another issue (a moved issue keeps its history). */
export function copyIssueMilestoneEvents(db: Db, fromIssueId: number, toIssueId: number): void {
  prepare(
    db,
    `INSERT INTO resource_milestone_events (issue_id, milestone_id, user_id, action, state, created_at)
     SELECT ?, milestone_id, user_id, action, state, created_at FROM resource_milestone_events WHERE issue_id = ? ORDER BY id`,
  ).run(toIssueId, fromIssueId);
}
