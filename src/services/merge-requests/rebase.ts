import { inTransaction } from '../../db/connection.js';
import { findMergeRequestById, updateMergeRequestRow, type MergeRequestColumns, type MergeRequestRow } from '../../db/tables/merge-requests.js';
import { findProjectById, type ProjectRow } from '../../db/tables/projects.js';
import { findUserById } from '../../db/tables/users.js';
import { AppError, conflict, forbidden } from '../../errors.js';
import { git, repositoryOf } from '../../git/in-repository.js';
import { fetchBranchInto, updateRefIfAt } from '../../git/merges.js';
import { branchCommit } from '../../git/refs.js';
import { withRefLock } from '../../git/ref-lock.js';
import { rebaseCommits } from '../../git/replay.js';
import type { SiteContext } from '../../site-context.js';
import { canPushToBranch, refPolicyFor } from '../repository/ref-policy.js';
import { notifyPush } from '../repository/commit-writer.js';
import { actingAs, type Actor } from '../users/authentication.js';

/** GitLab's RebaseService::REBASE_ERROR, stored in merge_error when the replay conflicts. */
const REBASE_ERROR = 'Rebase failed. Please rebase locally';

/**
 * PUT (and POST) .../rebase (issue 15, item 5): 403 unless the source branch exists and the
 * caller may push to it (GitLab's authorize_push_to_merge_request!), 409 while a rebase of this
 * merge request runs; marks it in progress and hands the rebase to the background worker
 * (runRebase; rebasesSettled waits for it there).
 */
export async function startRebase(ctx: SiteContext, actor: Actor, mergeRequest: MergeRequestRow): Promise<void> {
  const source = mergeRequest.source_project_id === null ? undefined : findProjectById(ctx.db, mergeRequest.source_project_id);
  if (!source || !(await branchCommit(repositoryOf(ctx, source), mergeRequest.source_branch))) throw forbidden('Source branch does not exist');
  if (!canPushToBranch(refPolicyFor(ctx.db, actor, source), mergeRequest.source_branch)) throw forbidden('Cannot push to source branch');
  inTransaction(ctx.db, () => {
    const current = findMergeRequestById(ctx.db, mergeRequest.id)!;
    if (current.rebase_in_progress) throw conflict('Failed to enqueue the rebase operation, possibly due to a long-lived transaction. Try again later.');
    updateMergeRequestRow(ctx.db, mergeRequest.id, { rebase_in_progress: 1, merge_error: null });
  });
  ctx.bus.toBackground({ kind: 'rebase', mergeRequestId: mergeRequest.id, userId: actor.user.id });
}

/**
 * The background worker's part of a rebase startRebase marked: replays the branch as the user who
 * asked. A merge request or source project gone meanwhile only ends the mark; a failure stores
 * GitLab's error.
 */
export function runRebase(ctx: SiteContext, mergeRequestId: number, userId: number): void {
  const mergeRequest = findMergeRequestById(ctx.db, mergeRequestId);
  const source = mergeRequest?.source_project_id == null ? undefined : findProjectById(ctx.db, mergeRequest.source_project_id);
  const user = findUserById(ctx.db, userId);
  const done = (fields: MergeRequestColumns) => inTransaction(ctx.db, () => updateMergeRequestRow(ctx.db, mergeRequestId, fields));
  if (!mergeRequest) return;
  if (!source || !user) return done({ rebase_in_progress: 0 });
  ctx.log.info({ merge_request_id: mergeRequestId }, 'rebasing a merge request');
  const work = rebaseMergeRequest(ctx, actingAs(user), source, mergeRequest).catch((error: unknown) => {
    if (!ctx.db.open) return;
    ctx.log.error({ err: error, merge_request_id: mergeRequestId }, 'rebase failed');
    done({ rebase_in_progress: 0, merge_error: REBASE_ERROR });
  });
  track(ctx, work);
}

const running = new WeakMap<SiteContext, Set<Promise<void>>>();
function track(ctx: SiteContext, work: Promise<void>): void {
  let set = running.get(ctx);
  if (!set) running.set(ctx, (set = new Set()));
  set.add(work);
  void work.finally(() => set.delete(work));
}

/** Resolves once the site's background rebases have finished. */
export async function rebasesSettled(ctx: SiteContext): Promise<void> {
  await Promise.all([...(running.get(ctx) ?? [])]);
}

/**
 * Replays the source branch's own commits on the target branch's head, in the source repository
 * (a fork gets the target head fetched into a scratch ref first), then moves the source branch by
 * compare-and-swap under its lock and runs the after-push path, which records a new version and
 * queues the mergeability check. A conflict leaves the branch alone and stores GitLab's error.
 */
async function rebaseMergeRequest(ctx: SiteContext, actor: Actor, source: ProjectRow, mergeRequest: MergeRequestRow): Promise<void> {
  const sourceRepository = repositoryOf(ctx, source);
  const targetRepository = repositoryOf(ctx, { id: mergeRequest.target_project_id });
  const sameProject = mergeRequest.target_project_id === source.id;
  const scratch = `refs/geoforge/rebase/${mergeRequest.id}`;
  const sourceRef = `refs/heads/${mergeRequest.source_branch}`;
  const committer = { name: actor.user.name, email: actor.user.email };
  const moved = await withRefLock(sourceRepository, sourceRef, async () => {
    try {
      const before = await branchCommit(sourceRepository, mergeRequest.source_branch);
      const onto = sameProject
        ? await branchCommit(targetRepository, mergeRequest.target_branch)
        : await fetchBranchInto(sourceRepository, targetRepository, mergeRequest.target_branch, scratch);
      if (!before || !onto) return { error: REBASE_ERROR } as const;
      const rebased = await rebaseCommits(sourceRepository, before, onto, committer);
      if (!rebased.ok) return { error: REBASE_ERROR } as const;
      if (rebased.head === before) return { before, after: before } as const;
      const reason = `geoforge: rebase of !${mergeRequest.iid} by ${actor.user.username}`;
      if (!(await updateRefIfAt(sourceRepository, sourceRef, rebased.head, before, reason))) return { error: REBASE_ERROR } as const;
      return { before, after: rebased.head } as const;
    } finally {
      // The scratch ref only held the target head for the replay; one left behind is harmless and the next rebase overwrites it.
      if (!sameProject) await git(sourceRepository, ['update-ref', '-d', scratch]).catch(() => undefined);
    }
  });
  inTransaction(ctx.db, () =>
    updateMergeRequestRow(ctx.db, mergeRequest.id, 'error' in moved ? { rebase_in_progress: 0, merge_error: moved.error } : { rebase_in_progress: 0, rebase_commit_sha: moved.after, merge_error: null }),
  );
  if (!('error' in moved) && moved.after !== moved.before) await notifyPush(ctx, source, actor, mergeRequest.source_branch, moved.before, moved.after);
}

/** GET .../merge_ref: the merge result the last check wrote (refs/merge-requests/<iid>/merge); 400 when the merge request cannot be merged or is not checked. */
export function mergeRefOf(mergeRequest: MergeRequestRow): { commit_id: string } {
  if (mergeRequest.merge_status !== 'can_be_merged' || !mergeRequest.merge_ref_sha) throw new AppError('bad_request', 'Merge request is not mergeable');
  return { commit_id: mergeRequest.merge_ref_sha };
}
