import { epicIdsOfGroups } from '../../db/tables/epics.js';
import { removeEpicRows } from '../planning/epics.js';
import type { Db } from '../../db/connection.js';
import { deleteIssueRow, issueIdsOfProject } from '../../db/tables/issues.js';
import { labelIdsOfGroups, labelIdsOfProject } from '../../db/tables/labels.js';
import { deleteSubscriptionsOf } from '../../db/tables/subscriptions.js';
import { deleteUserAgentDetailsOf } from '../../db/tables/user-agent-details.js';
import { removeProjectMergeRequests } from '../merge-requests/removal.js';
import { deletePolymorphicRows } from './polymorphic-rows.js';

/**
 * Deletes issues with every row that points at them by type and id, which no foreign key removes:
 * label links, notes (with their award emoji and events), award emoji, todos, subscriptions,
 * events and user agent details. Assignees, resource events and time logs follow the issue rows
 * through foreign keys. Runs in the caller's transaction.
 */
export function removeIssueRows(db: Db, issueIds: readonly number[]): void {
  if (!issueIds.length) return;
  deletePolymorphicRows(db, 'Issue', issueIds);
  deleteUserAgentDetailsOf(db, 'Issue', issueIds);
  for (const id of issueIds) deleteIssueRow(db, id);
}

/**
 * What a project delete must remove of the tracker before its row goes (projects/projects.ts
 * calls it in its transaction): its issues and merge requests with their polymorphic rows, and the subscriptions to
 * its labels. Milestones, labels and the rest follow the project through foreign keys.
 */
export function removeProjectIssuables(db: Db, projectId: number): void {
  removeIssueRows(db, issueIdsOfProject(db, projectId));
  removeProjectMergeRequests(db, projectId);
  deleteSubscriptionsOf(db, 'Label', labelIdsOfProject(db, projectId));
}

/** What a group delete must remove of the tracker before its rows go: its epics with their polymorphic rows, the subscriptions to its labels (the labels follow through foreign keys). */
export function removeGroupIssuables(db: Db, groupIds: readonly number[]): void {
  removeEpicRows(db, epicIdsOfGroups(db, groupIds));
  deleteSubscriptionsOf(db, 'Label', labelIdsOfGroups(db, groupIds));
}
