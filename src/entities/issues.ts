import type { IssueRow } from '../db/tables/issues.js';
import type { UserRow } from '../db/tables/users.js';
import { flag, isoTime } from './column-values.js';
import { labelBasic } from './labels.js';
import { issuableHead, milestoneOf, projectPathOf, userOf, type IssuableRelations } from './issuables.js';
import { timeStats } from './time-stats.js';
import { userBasic, type EntityContext } from './users.js';

/**
 * Everything the issue views need beyond the row, loaded by services/issuables/issue-relations.ts
 * for a whole page, one query per kind: entities never query.
 */
export interface IssueRelations extends IssuableRelations {
  readonly assignees: ReadonlyMap<number, readonly UserRow[]>;
  /** Per issue, how many open issues it blocks (missing: none). */
  readonly blockingCounts: ReadonlyMap<number, number>;
}

export interface IssueViewOptions {
  /** `with_labels_details`: labels as LabelBasic objects instead of names. */
  readonly labelsDetails?: boolean;
}

/** Markdown task list items (`- [ ]`, `1. [x]`), as GitLab's TaskList counts them. */
const TASK_ITEM = /^[ \t]*(?:[-+*]|\d+[.)])[ \t]+\[([ xX])\](?=[ \t]|$)/gm;

/** How many task list items the text has, and how many are checked. */
export function taskCompletion(text: string | null): { count: number; completed_count: number } {
  let count = 0;
  let completed = 0;
  for (const match of (text ?? '').matchAll(TASK_ITEM)) {
    count += 1;
    if (match[1] !== ' ') completed += 1;
  }
  return { count, completed_count: completed };
}

const pathOf = (row: IssueRow, rel: IssueRelations) => projectPathOf(row.project_id, rel, `issue ${row.id}`);

/**
 * IssueBasic (ENT IssueBasic, EE fields included): the list view. `merge_requests_count` stays 0
 * until merge requests exist (the next issue of the tracker).
 */
export function issueBasic(row: IssueRow, rel: IssueRelations, ctx: EntityContext, options: IssueViewOptions = {}) {
  const labels = rel.labels.get(row.id) ?? [];
  const assignees = (rel.assignees.get(row.id) ?? []).map((user) => userBasic(user, ctx));
  const votes = rel.votes.get(row.id);
  return {
    ...issuableHead(row, row.project_id),
    closed_at: isoTime(row.closed_at),
    closed_by: userOf(row.closed_by_id, rel, ctx),
    labels: options.labelsDetails ? labels.map(labelBasic) : labels.map((label) => label.title),
    milestone: milestoneOf(row, rel, ctx),
    assignees,
    author: userOf(row.author_id, rel, ctx),
    assignee: assignees[0] ?? null,
    user_notes_count: rel.userNotesCounts.get(row.id) ?? 0,
    merge_requests_count: 0,
    upvotes: votes?.upvotes ?? 0,
    downvotes: votes?.downvotes ?? 0,
    due_date: row.due_date,
    confidential: flag(row.confidential),
    discussion_locked: row.discussion_locked === null ? null : flag(row.discussion_locked),
    web_url: `${ctx.externalUrl}/${pathOf(row, rel)}/issues/${row.iid}`,
    time_stats: timeStats(row),
    task_completion_status: taskCompletion(row.description),
    weight: row.weight,
    blocking_issues_count: rel.blockingCounts.get(row.id) ?? 0,
  };
}

/** Issue (ENT Issue): one issue, with its links, references, task status and the caller's subscription. */
export function issueView(row: IssueRow, rel: IssueRelations, ctx: EntityContext) {
  const tasks = taskCompletion(row.description);
  const project = `${ctx.externalUrl}/api/v4/projects/${row.project_id}`;
  const self = `${project}/issues/${row.iid}`;
  return Object.assign(issueBasic(row, rel, ctx), {
    has_tasks: tasks.count > 0,
    ...(tasks.count > 0 ? { task_status: `${tasks.completed_count} of ${tasks.count} ${tasks.count === 1 ? 'task' : 'tasks'} completed` } : {}),
    _links: { self, notes: `${self}/notes`, award_emoji: `${self}/award_emoji`, project },
    references: { short: `#${row.iid}`, relative: `#${row.iid}`, full: `${pathOf(row, rel)}#${row.iid}` },
    subscribed: rel.subscribed.has(row.id),
    moved_to_id: row.moved_to_id,
  });
}
