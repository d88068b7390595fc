import type { IssueRow } from '../../db/tables/issues.js';
import type { LabelRow } from '../../db/tables/labels.js';
import type { MilestoneRow } from '../../db/tables/milestones.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import type { UserRow } from '../../db/tables/users.js';
import type { SiteContext } from '../../site-context.js';
import { issueEvents } from './issue-events.js';
import { issueHooks } from './issue-hooks.js';
import { writeIssueHistory, writeMilestoneRemovals } from './system-notes.js';
import { issueTodos } from './todos.js';

/**
 * The seam between the tracker's writes and what follows from them. Every write of an issue or a
 * milestone announces what changed, inside its transaction, to the listeners below, so that a
 * listener's rows commit or roll back with the change: system notes and resource events, events,
 * todos and webhooks each have one listener here, and this file is the only place that needs to
 * know they exist.
 */

/** What one write did to one issue. */
export interface IssueChange {
  /**
   * `opened` on create; `closed` or `reopened` when the write changed the state (other attributes
   * may have changed with it); `updated` for any other edit (time tracking included); `moved` for
   * the issue a move closed, announced after `opened` for the copy it became; `deleted` just
   * before the rows go.
   */
  readonly action: 'opened' | 'updated' | 'closed' | 'reopened' | 'moved' | 'deleted';
  readonly actor: UserRow;
  readonly project: ProjectRow;
  /** The issue as written (for `deleted`, as it was). */
  readonly issue: IssueRow;
  /** The issue before the write; null on create. */
  readonly previous: IssueRow | null;
  /** Each column whose value the write changed, as [before, after] (GitLab's `changes` of a hook payload). */
  readonly changes: Readonly<Partial<Record<keyof IssueRow, readonly [unknown, unknown]>>>;
  readonly labels: { readonly added: readonly LabelRow[]; readonly removed: readonly LabelRow[] };
  /** Assignee ids before and after, when the write changed them. */
  readonly assignees: { readonly previous: readonly number[]; readonly current: readonly number[] } | null;
  /** Seconds of time logged by this write (negative when subtracted), or `reset`; null when none. */
  readonly spentTime: number | 'reset' | null;
  /** For `moved`: the issue it became in the other project. */
  readonly movedTo: IssueRow | null;
}

/**
 * What one write did to one milestone. `deleted` is announced before the rows go, so a listener
 * still finds the issues that lose it (their milestone_id is cleared right after); a promotion
 * announces the group milestone `created` and each merged project milestone `deleted`.
 */
export interface MilestoneChange {
  readonly action: 'created' | 'updated' | 'closed' | 'reopened' | 'deleted';
  readonly actor: UserRow;
  readonly milestone: MilestoneRow;
  readonly previous: MilestoneRow | null;
}

export type IssueChangeListener = (ctx: SiteContext, change: IssueChange) => void;
export type MilestoneChangeListener = (ctx: SiteContext, change: MilestoneChange) => void;

const ISSUE_CHANGE_LISTENERS: readonly IssueChangeListener[] = [writeIssueHistory, issueEvents, issueTodos, issueHooks];
const MILESTONE_CHANGE_LISTENERS: readonly MilestoneChangeListener[] = [writeMilestoneRemovals];

/** Tells every listener what a write did to an issue; call it inside the write's transaction, after the rows are written. */
export function announceIssueChange(ctx: SiteContext, change: IssueChange): void {
  for (const listener of ISSUE_CHANGE_LISTENERS) listener(ctx, change);
}

/** Tells every listener what a write did to a milestone; call it inside the write's transaction. */
export function announceMilestoneChange(ctx: SiteContext, change: MilestoneChange): void {
  for (const listener of MILESTONE_CHANGE_LISTENERS) listener(ctx, change);
}

/** The columns whose values differ between two versions of a row, as [before, after]. */
export function changedColumns<T extends object>(before: T | null, after: T): Partial<Record<keyof T, readonly [unknown, unknown]>> {
  const out: Partial<Record<keyof T, readonly [unknown, unknown]>> = {};
  for (const key of Object.keys(after) as (keyof T)[]) {
    const old = before ? before[key] : null;
    if (old !== after[key]) out[key] = [old, after[key]];
  }
  return out;
}
