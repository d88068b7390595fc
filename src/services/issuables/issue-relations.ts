import type { Db } from '../../db/connection.js';
import { assigneesOfIssues } from '../../db/tables/issue-assignees.js';
import { blockingIssuesCounts } from '../../db/tables/issue-links.js';
import type { IssueRow } from '../../db/tables/issues.js';
import type { IssueRelations } from '../../entities/issues.js';
import type { Actor } from '../users/authentication.js';
import { loadIssuableRelations } from './issuable-relations.js';
import { isIssueSubscribed } from './subscriptions.js';

/**
 * What the issue views need for a page of issues, one query per kind whatever the page size:
 * users, assignees, labels, milestones, project and group paths, user note counts, votes and
 * how many open issues each blocks.
 * `withSubscriptions` adds whether the caller follows each issue (the single-issue view).
 */
export function loadIssueRelations(db: Db, actor: Actor | null, rows: readonly IssueRow[], options: { withSubscriptions?: boolean } = {}): IssueRelations {
  const userIds = rows.flatMap((row) => (row.closed_by_id === null ? [row.author_id] : [row.author_id, row.closed_by_id]));
  const assignees = assigneesOfIssues(db, rows.map((row) => row.id));
  return {
    ...loadIssuableRelations(db, 'Issue', rows, rows.map((row) => row.project_id), userIds),
    assignees,
    blockingCounts: blockingIssuesCounts(db, rows.map((row) => row.id)),
    subscribed: options.withSubscriptions && actor ? subscribedIssueIds(db, actor, rows, assignees) : new Set(),
  };
}

/** The issues of a page the actor follows (each as Subscribable#subscribed? decides). */
function subscribedIssueIds(db: Db, actor: Actor, rows: readonly IssueRow[], assignees: ReadonlyMap<number, readonly { id: number }[]>): Set<number> {
  const followed = rows.filter((row) => isIssueSubscribed(db, actor, row, (assignees.get(row.id) ?? []).map((user) => user.id)));
  return new Set(followed.map((row) => row.id));
}
