import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';
import type { ResourceLabelEventRow } from './resource-label-events.js';
import type { ResourceMilestoneEventRow } from './resource-milestone-events.js';
import type { ResourceStateEventRow } from './resource-state-events.js';

/**
 * The resource label, milestone and state events of merge requests: the tracker's tables with
 * merge_request_id filled (indexes resource_*_events_merge_request), oldest first.
 */

export function insertMergeRequestLabelEvent(db: Db, event: { merge_request_id: number; label_id: number; user_id: number; action: 'add' | 'remove'; created_at: string }): void {
  prepare(db, 'INSERT INTO resource_label_events (merge_request_id, label_id, user_id, action, created_at) VALUES (@merge_request_id, @label_id, @user_id, @action, @created_at)').run(event);
}

export function insertMergeRequestMilestoneEvent(
  db: Db,
  event: { merge_request_id: number; milestone_id: number | null; user_id: number; action: 'add' | 'remove'; state: ResourceMilestoneEventRow['state']; created_at: string },
): void {
  prepare(
    db,
    'INSERT INTO resource_milestone_events (merge_request_id, milestone_id, user_id, action, state, created_at) VALUES (@merge_request_id, @milestone_id, @user_id, @action, @state, @created_at)',
  ).run(event);
}

export function insertMergeRequestStateEvent(db: Db, event: { merge_request_id: number; user_id: number; state: ResourceStateEventRow['state']; created_at: string }): void {
  prepare(db, 'INSERT INTO resource_state_events (merge_request_id, user_id, state, created_at) VALUES (@merge_request_id, @user_id, @state, @created_at)').run(event);
}

export function mergeRequestLabelEventsPage(db: Db, mergeRequestId: number, page: Page): Paged<ResourceLabelEventRow> {
  return selectPage<ResourceLabelEventRow>(db, '*', 'FROM resource_label_events WHERE merge_request_id = ?', 'id', [mergeRequestId], page);
}

export function findMergeRequestLabelEvent(db: Db, mergeRequestId: number, id: number): ResourceLabelEventRow | undefined {
  return prepare(db, 'SELECT * FROM resource_label_events WHERE id = ? AND merge_request_id = ?').get(id, mergeRequestId) as ResourceLabelEventRow | undefined;
}

export function mergeRequestMilestoneEventsPage(db: Db, mergeRequestId: number, page: Page): Paged<ResourceMilestoneEventRow> {
  return selectPage<ResourceMilestoneEventRow>(db, '*', 'FROM resource_milestone_events WHERE merge_request_id = ?', 'id', [mergeRequestId], page);
}

export function findMergeRequestMilestoneEvent(db: Db, mergeRequestId: number, id: number): ResourceMilestoneEventRow | undefined {
  return prepare(db, 'SELECT * FROM resource_milestone_events WHERE id = ? AND merge_request_id = ?').get(id, mergeRequestId) as ResourceMilestoneEventRow | undefined;
}

export function mergeRequestStateEventsPage(db: Db, mergeRequestId: number, page: Page): Paged<ResourceStateEventRow> {
  return selectPage<ResourceStateEventRow>(db, '*', 'FROM resource_state_events WHERE merge_request_id = ?', 'id', [mergeRequestId], page);
}

export function findMergeRequestStateEvent(db: Db, mergeRequestId: number, id: number): ResourceStateEventRow | undefined {
  return prepare(db, 'SELECT * FROM resource_state_events WHERE id = ? AND merge_request_id = ?').get(id, mergeRequestId) as ResourceStateEventRow | undefined;
}
