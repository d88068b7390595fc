import { inTransaction } from '../../db/connection.js';
import { findMergeRequestById, openMergeRequestsFromBranch, openMergeRequestsIntoBranch, updateMergeRequestRow, type MergeRequestRow } from '../../db/tables/merge-requests.js';
import { findProjectById, type ProjectRow } from '../../db/tables/projects.js';
import { recordRepositoryChange } from '../../geo/repository-events.js';
import { repositoryOf } from '../../git/in-repository.js';
import { writeMergeRequestHead } from '../../git/merge-request-refs.js';
import { isBlankSha } from '../../git/object-names.js';
import type { SiteContext } from '../../site-context.js';
import type { Actor } from '../users/authentication.js';
import { announceHeadsMoved, announceMergeRequestChange, mergeRequestChange } from './changes.js';
import { cacheClosingIssues } from './closing-issues.js';
import { recordDiffVersion } from './diff-versions.js';

/**
 * Brings a merge request up to its source head `head`: refs/merge-requests/<iid>/head in the
 * target repository (fetched from a fork), the target repository's Geo event for the ref, a new
 * diff version when the head moved, and the issues its commits close. Returns whether a version was recorded. The caller
 * announces the heads move (merge_status) itself.
 */
async function moveHead(ctx: SiteContext, mergeRequest: MergeRequestRow, head: string, newTarget = false, startSha?: string | null): Promise<boolean> {
  if (mergeRequest.source_project_id === null) return false;
  const targetRepository = repositoryOf(ctx, { id: mergeRequest.target_project_id });
  await writeMergeRequestHead(targetRepository, repositoryOf(ctx, { id: mergeRequest.source_project_id }), mergeRequest.iid, head);
  // The ref is durable: its Geo event first, so no failure below loses it.
  await recordRepositoryChange(ctx.db, ctx.config.dataDir, mergeRequest.target_project_id, 'repository', 'updated');
  const recorded = (await recordDiffVersion(ctx, mergeRequest.id, head, newTarget, startSha)) !== null;
  // The new version's commit messages may close issues.
  const current = recorded ? findMergeRequestById(ctx.db, mergeRequest.id) : undefined;
  if (current) cacheClosingIssues(ctx, current);
  return recorded;
}

/** Sets merge_status back to `unchecked` (its heads moved) for these open merge requests, in one transaction. */
function markUnchecked(ctx: SiteContext, ids: readonly number[]): void {
  inTransaction(ctx.db, () => {
    for (const id of ids) {
      const row = findMergeRequestById(ctx.db, id);
      if (row && row.state === 'opened' && row.merge_status !== 'unchecked') updateMergeRequestRow(ctx.db, id, { merge_status: 'unchecked' });
    }
  });
}

/**
 * After a create, a reopen or a new target branch: the head ref and the first (or a new) diff
 * version for the source head (`newTarget`: even when the head did not move, the target did), then
 * the heads-moved seam. `startSha`: the target branch's head as the caller just read it (the
 * version's start; read here when absent). A git failure is logged, not thrown: the merge request
 * exists, and the next push records what is missing.
 */
export async function refreshMergeRequestHead(
  ctx: SiteContext,
  mergeRequest: MergeRequestRow,
  head: string,
  options: { newTarget?: boolean; startSha?: string | null } = {},
): Promise<void> {
  try {
    await moveHead(ctx, mergeRequest, head, options.newTarget ?? false, options.startSha);
  } catch (error) {
    ctx.log.error({ err: error, merge_request_id: mergeRequest.id }, 'merge request head refresh failed');
  }
  markUnchecked(ctx, [mergeRequest.id]);
  announceHeadsMoved(ctx, [mergeRequest.id]);
}

/**
 * What a push to a branch of `project` does to merge requests (GitLab's MergeRequests::RefreshService),
 * called by the after-push path for each branch update: open merge requests from that branch get
 * the new head (ref, version, a `pushed` change for hooks); those into it, and those from it, go
 * back to `unchecked` and are announced to the heads-moved listeners. A deleted source branch
 * leaves its merge requests as they are: their commits stay under refs/merge-requests/<iid>/head.
 */
export async function refreshMergeRequestsAfterPush(ctx: SiteContext, project: ProjectRow, actor: Actor, branch: string, after: string): Promise<void> {
  const moved = new Set<number>();
  if (!isBlankSha(after)) {
    for (const mergeRequest of openMergeRequestsFromBranch(ctx.db, project.id, branch)) {
      moved.add(mergeRequest.id);
      try {
        const previous = findMergeRequestById(ctx.db, mergeRequest.id) ?? mergeRequest;
        if (!(await moveHead(ctx, mergeRequest, after))) continue;
        inTransaction(ctx.db, () => {
          const current = findMergeRequestById(ctx.db, mergeRequest.id);
          const target = findProjectById(ctx.db, mergeRequest.target_project_id);
          if (current && target) announceMergeRequestChange(ctx, mergeRequestChange('pushed', actor.user, target, previous, current));
        });
      } catch (error) {
        ctx.log.error({ err: error, merge_request_id: mergeRequest.id, branch }, 'merge request refresh after a push failed');
      }
    }
  }
  for (const mergeRequest of openMergeRequestsIntoBranch(ctx.db, project.id, branch)) moved.add(mergeRequest.id);
  const ids = [...moved];
  markUnchecked(ctx, ids);
  announceHeadsMoved(ctx, ids);
}
