import type { Db } from '../../db/connection.js';
import { addMergeRequestsCount, deleteMergeRequestResourceRows, deleteMergeRequestRow, mergeRequestIdsOfProject, mergeRequestsByIds } from '../../db/tables/merge-requests.js';
import { deletePolymorphicRows } from '../issuables/polymorphic-rows.js';

/**
 * Deletes merge requests with every row that points at them by type and id, which no foreign key
 * removes: label links, notes (with their award emoji and events), award emoji, todos,
 * subscriptions, events, resource events and time logs. Diff versions, approvals and closing-issue
 * links follow through foreign keys; the target projects' merge_requests_count follows. Runs in the caller's transaction.
 */
export function removeMergeRequestRows(db: Db, ids: readonly number[]): void {
  if (!ids.length) return;
  deletePolymorphicRows(db, 'MergeRequest', ids);
  deleteMergeRequestResourceRows(db, ids);
  for (const row of mergeRequestsByIds(db, ids)) {
    addMergeRequestsCount(db, row.target_project_id, -1);
    deleteMergeRequestRow(db, row.id);
  }
}

/** What a project delete removes of merge requests before its row goes: those it is the target of. (A deleted fork leaves its merge requests in the upstream, source_project_id null.) */
export function removeProjectMergeRequests(db: Db, projectId: number): void {
  removeMergeRequestRows(db, mergeRequestIdsOfProject(db, projectId));
}
