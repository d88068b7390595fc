import type { Db } from '../../db/connection.js';
import { moveAwardsToUser } from '../../db/tables/award-emoji.js';
import { moveEventsToAuthor } from '../../db/tables/events.js';
import { epicIdsAuthoredBy, moveEpicsToAuthor } from '../../db/tables/epics.js';
import { issuesAuthoredBy, moveIssuesToAuthor } from '../../db/tables/issues.js';
import { moveNotesToAuthor, noteIdsAuthoredBy } from '../../db/tables/notes.js';
import { mergeRequestsAuthoredBy, moveMergeRequestActorsTo, moveMergeRequestsToAuthor } from '../../db/tables/merge-requests.js';
import { moveTodosToAuthor } from '../../db/tables/todos.js';
import { removeMergeRequestRows } from '../merge-requests/removal.js';
import { removeEpicRows } from '../planning/epics.js';
import { removeIssueRows } from './issue-removal.js';
import { keepOpenIssuesCount } from './issues.js';
import { deleteNoteAwardsAndEvents } from './polymorphic-rows.js';

/**
 * What the tracker does with a deleted user's contributions (services/users calls these in the
 * deletion's transaction, before the user row goes). GitLab's Users::MigrateToGhostUserService:
 * the issues, merge requests, epics and notes they wrote, the merges and closes they did, the award
 * emoji they gave, the todos they caused and their events move to the ghost user. Their own todos,
 * subscriptions and assignments go with them.
 */
export function moveTrackerContributions(db: Db, userId: number, ghostId: number): void {
  moveIssuesToAuthor(db, userId, ghostId);
  moveMergeRequestsToAuthor(db, userId, ghostId);
  moveMergeRequestActorsTo(db, userId, ghostId);
  moveEpicsToAuthor(db, userId, ghostId);
  moveNotesToAuthor(db, userId, ghostId);
  moveAwardsToUser(db, userId, ghostId);
  moveTodosToAuthor(db, userId, ghostId);
  moveEventsToAuthor(db, userId, ghostId);
}

/**
 * A hard delete (`hard_delete=true`): the user's issues, merge requests and epics go with everything that points at them
 * (projects' open_issues_count follows), and the notes they wrote elsewhere with their award emoji
 * and events, none of which a foreign key removes. Their awards, todos and events go with the user
 * row through the author columns' cascades.
 */
export function removeTrackerContributions(db: Db, userId: number): void {
  const issues = issuesAuthoredBy(db, userId);
  for (const issue of issues) keepOpenIssuesCount(db, issue.project_id, issue, null);
  removeIssueRows(db, issues.map((issue) => issue.id));
  removeMergeRequestRows(db, mergeRequestsAuthoredBy(db, userId).map((mergeRequest) => mergeRequest.id));
  removeEpicRows(db, epicIdsAuthoredBy(db, userId));
  const noteIds = noteIdsAuthoredBy(db, userId);
  if (noteIds.length) deleteNoteAwardsAndEvents(db, noteIds);
}
