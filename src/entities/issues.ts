import type { IssueRow } from '../db/tables/issues.js';
import type { LabelRow } from '../db/tables/labels.js';
import type { MilestoneRow } from '../db/tables/milestones.js';
import type { UserRow } from '../db/tables/users.js';
import { flag, isoTime } from './column-values.js';
import { labelBasic } from './labels.js';
import { milestoneView } from './milestones.js';
import { timeStats } from './time-stats.js';
import { userBasic, type EntityContext } from './users.js';

/**
 * Everything the issue views need beyond the row, loaded by services/issuables/issue-relations.ts
 * for a whole page, one query per kind: entities never query.
 */
export interface IssueRelations {
  /** Authors and closers, by user id. */
  readonly users: ReadonlyMap<number, UserRow>;
  readonly assignees: ReadonlyMap<number, readonly UserRow[]>;
  readonly labels: ReadonlyMap<number, readonly LabelRow[]>;
  readonly milestones: ReadonlyMap<number, MilestoneRow>;
  /** Full paths of the issues' projects, and of the groups of group milestones, by id. */
  readonly projectPaths: ReadonlyMap<number, string>;
  readonly groupPaths: ReadonlyMap<number, string>;
  readonly userNotesCounts: ReadonlyMap<number, number>;
  readonly votes: ReadonlyMap<number, { readonly upvotes: number; readonly downvotes: number }>;
  /** The issues the caller follows; loaded for the single-issue view only, as GitLab does. */
  readonly subscribed: ReadonlySet<number>;
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

function pathOf(row: IssueRow, rel: IssueRelations): string {
  const path = rel.projectPaths.get(row.project_id);
  if (path === undefined) throw new Error(`issue ${row.id}: project ${row.project_id} was not preloaded`);
  return path;
}

function userOf(id: number | null, rel: IssueRelations, ctx: EntityContext) {
  if (id === null) return null;
  const user = rel.users.get(id);
  return user ? userBasic(user, ctx) : null;
}

function milestoneOf(row: IssueRow, rel: IssueRelations, ctx: EntityContext) {
  const milestone = row.milestone_id === null ? undefined : rel.milestones.get(row.milestone_id);
  if (!milestone) return null;
  const ownerPath = milestone.project_id !== null ? rel.projectPaths.get(milestone.project_id) : rel.groupPaths.get(milestone.group_id!);
  return milestoneView(milestone, ownerPath ?? '', ctx);
}

/**
 * IssueBasic (ENT IssueBasic, EE fields included): the list view. `merge_requests_count` stays 0
 * until merge requests exist (the next issue of the tracker).
 */
export function issueBasic(row: IssueRow, rel: IssueRelations, ctx: EntityContext, options: IssueViewOptions = {}) {
  const labels = rel.labels.get(row.id) ?? [];
  const assignees = (rel.assignees.get(row.id) ?? []).map((user) => userBasic(user, ctx));
  const votes = rel.votes.get(row.id);
  return {
    id: row.id,
    iid: row.iid,
    project_id: row.project_id,
    title: row.title,
    description: row.description,
    state: row.state,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
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
