import type { LabelRow } from '../../db/tables/labels.js';
import type { MergeRequestRow } from '../../db/tables/merge-requests.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import type { UserRow } from '../../db/tables/users.js';
import type { SiteContext } from '../../site-context.js';
import { changedColumns } from '../issuables/changes.js';
import { resetApprovalsOnPush } from './approvals.js';
import { mergeRequestEvents } from './events.js';
import { scheduleMergeabilityChecks } from './mergeability.js';
import { writeMergeRequestHistory } from './history.js';
import { mergeRequestHooks } from './hooks.js';
import { mergeRequestTodos } from './todos.js';

/**
 * The two seams between merge request writes and what follows from them (as
 * services/issuables/changes.ts is for issues):
 *
 * 1. Every write of a merge request announces what it did, inside its transaction, to the change
 *    listeners (system notes and resource events, events, todos, webhooks), so their rows commit
 *    or roll back with it. The merge code announces `merged` through announceMergeRequestChange.
 * 2. After a commit, whatever moved a merge request's heads (its creation, a push to its source or
 *    target branch, a target branch change, a reopen) tells the heads-moved listeners, outside
 *    any transaction, with the merge requests whose `merge_status` went back to `unchecked`: the
 *    background mergeability check plugs in there.
 */

/** What one write did to one merge request. */
export interface MergeRequestChange {
  /**
   * `opened` on create; `closed`, `reopened` or `merged` when the write changed the state (other
   * attributes may have changed with it); `updated` for any other edit; `pushed` when a push to
   * the source branch recorded a new version; `deleted` just before the rows go.
   */
  readonly action: 'opened' | 'updated' | 'closed' | 'reopened' | 'merged' | 'pushed' | 'deleted';
  readonly actor: UserRow;
  /** The target project. */
  readonly project: ProjectRow;
  readonly mergeRequest: MergeRequestRow;
  /** The row before the write; null on create. */
  readonly previous: MergeRequestRow | null;
  /** Each column whose value the write changed, as [before, after] (GitLab's `changes` of a hook payload). */
  readonly changes: Readonly<Partial<Record<keyof MergeRequestRow, readonly [unknown, unknown]>>>;
  readonly labels: { readonly added: readonly LabelRow[]; readonly removed: readonly LabelRow[] };
  /** Seconds of time logged by this write (negative when subtracted), or `reset`; absent when none. */
  readonly spentTime?: number | 'reset' | null;
}

export type MergeRequestChangeListener = (ctx: SiteContext, change: MergeRequestChange) => void;

/** Called after the commit with the ids of the merge requests whose heads moved (now `unchecked`); must not throw. */
export type HeadsMovedListener = (ctx: SiteContext, mergeRequestIds: readonly number[]) => void;

const CHANGE_LISTENERS: readonly MergeRequestChangeListener[] = [writeMergeRequestHistory, mergeRequestEvents, mergeRequestTodos, resetApprovalsOnPush, mergeRequestHooks];
const HEADS_MOVED_LISTENERS: readonly HeadsMovedListener[] = [scheduleMergeabilityChecks];

/** Tells every listener what a write did to a merge request; call it inside the write's transaction, after the rows are written. */
export function announceMergeRequestChange(ctx: SiteContext, change: MergeRequestChange): void {
  for (const listener of CHANGE_LISTENERS) listener(ctx, change);
}

/** Tells the heads-moved listeners which merge requests need their mergeability computed again; call it after the commit. */
export function announceHeadsMoved(ctx: SiteContext, mergeRequestIds: readonly number[]): void {
  if (!mergeRequestIds.length) return;
  for (const listener of HEADS_MOVED_LISTENERS) {
    try {
      listener(ctx, mergeRequestIds);
    } catch (error) {
      // A listener's failure (a check that could not be queued) leaves the request `unchecked`, which the next move or accept re-checks.
      ctx.log.error({ err: error, merge_request_ids: mergeRequestIds }, 'a heads-moved listener failed');
    }
  }
}

/** A MergeRequestChange for the common writes. */
export function mergeRequestChange(
  action: MergeRequestChange['action'],
  actor: UserRow,
  project: ProjectRow,
  previous: MergeRequestRow | null,
  mergeRequest: MergeRequestRow,
  labels: MergeRequestChange['labels'] = { added: [], removed: [] },
): MergeRequestChange {
  return { action, actor, project, mergeRequest, previous, changes: changedColumns(previous, mergeRequest), labels };
}
