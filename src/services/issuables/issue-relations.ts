import type { Db } from '../../db/connection.js';
import { voteCounts } from '../../db/tables/award-emoji.js';
import { assigneesOfIssues } from '../../db/tables/issue-assignees.js';
import type { IssueRow } from '../../db/tables/issues.js';
import { labelsOfTargets } from '../../db/tables/label-links.js';
import { milestonesByIds } from '../../db/tables/milestones.js';
import { userNotesCounts } from '../../db/tables/notes.js';
import { namespacesByIds, projectFullPaths, usersByIds } from '../../db/tables/project-relations.js';
import type { IssueRelations } from '../../entities/issues.js';
import type { Actor } from '../users/authentication.js';
import { isIssueSubscribed } from './subscriptions.js';

/**
 * What the issue views need for a page of issues, one query per kind whatever the page size:
 * users, assignees, labels, milestones, project and group paths, user note counts and votes.
 * `withSubscriptions` adds whether the caller follows each issue (the single-issue view).
 */
export function loadIssueRelations(db: Db, actor: Actor | null, rows: readonly IssueRow[], options: { withSubscriptions?: boolean } = {}): IssueRelations {
  const ids = rows.map((row) => row.id);
  const milestones = milestonesByIds(db, [...new Set(rows.flatMap((row) => (row.milestone_id === null ? [] : [row.milestone_id])))]);
  const projectIds = [...rows.map((row) => row.project_id), ...[...milestones.values()].flatMap((m) => (m.project_id === null ? [] : [m.project_id]))];
  const groupIds = [...milestones.values()].flatMap((m) => (m.group_id === null ? [] : [m.group_id]));
  const userIds = rows.flatMap((row) => (row.closed_by_id === null ? [row.author_id] : [row.author_id, row.closed_by_id]));
  const assignees = assigneesOfIssues(db, ids);
  return {
    users: usersByIds(db, userIds),
    assignees,
    labels: labelsOfTargets(db, 'Issue', ids),
    milestones,
    projectPaths: projectFullPaths(db, projectIds),
    groupPaths: new Map([...namespacesByIds(db, groupIds).values()].map((group) => [group.id, group.full_path])),
    userNotesCounts: userNotesCounts(db, 'Issue', ids),
    votes: voteCounts(db, 'Issue', ids),
    subscribed: options.withSubscriptions && actor ? subscribedIssueIds(db, actor, rows, assignees) : new Set(),
  };
}

/** The issues of a page the actor follows (each as Subscribable#subscribed? decides). */
function subscribedIssueIds(db: Db, actor: Actor, rows: readonly IssueRow[], assignees: ReadonlyMap<number, readonly { id: number }[]>): Set<number> {
  const followed = rows.filter((row) => isIssueSubscribed(db, actor, row, (assignees.get(row.id) ?? []).map((user) => user.id)));
  return new Set(followed.map((row) => row.id));
}
