import type { ProjectRow } from '../../db/tables/projects.js';
import { badRequest, notFound } from '../../errors.js';
import { readCommit, type CommitRecord } from '../../git/commit-log.js';
import { repositoryOf } from '../../git/in-repository.js';
import { updateRefIfAt } from '../../git/merges.js';
import { branchCommit, resolveCommit } from '../../git/refs.js';
import { withRefLock } from '../../git/ref-lock.js';
import { cherryPickCommit, revertCommit, type PickResult } from '../../git/replay.js';
import type { SiteContext } from '../../site-context.js';
import type { Actor } from '../users/authentication.js';
import { notifyPush } from './commit-writer.js';
import { canPushToBranch, refPolicyFor } from './ref-policy.js';

/** The two changes a commit can be carried over as (GitLab's Commits::CherryPickService and RevertService). */
export type CommitChange = 'cherry_pick' | 'revert';

const VERB: Record<CommitChange, { verb: string; done: string }> = {
  cherry_pick: { verb: 'cherry-pick', done: 'cherry-picked' },
  revert: { verb: 'revert', done: 'reverted' },
};

/**
 * Cherry-picks or reverts the commit `ref` names onto `branch` without a work tree, and resolves
 * to the new commit. GitLab's order: 404 `Commit`, then 404 `Branch`; a conflict or a change that
 * is already there is a 400 with GitLab's message. The branch moves by compare-and-swap under its
 * ref lock (a push meanwhile makes this a 400, never a lost update), then the after-push path runs
 * as for a push: activity, push events, webhooks and the Geo repository event.
 */
export async function applyCommitChange(ctx: SiteContext, project: ProjectRow, actor: Actor, kind: CommitChange, ref: string, branch: string): Promise<CommitRecord> {
  const repository = repositoryOf(ctx, project);
  const sha = await resolveCommit(repository, ref);
  if (!sha) throw notFound('Commit');
  if (!(await branchCommit(repository, branch))) throw notFound('Branch');
  // Commits::ChangeService validates as a commit does: a protected branch takes commits from those who may push to it.
  if (!canPushToBranch(refPolicyFor(ctx.db, actor, project), branch)) throw badRequest('You are not allowed to push into this branch');
  const commit = await readCommit(repository, sha);
  const committer = { name: actor.user.name, email: actor.user.email };
  const moved = await withRefLock(repository, `refs/heads/${branch}`, async () => {
    const before = await branchCommit(repository, branch);
    if (!before) throw notFound('Branch');
    const result: PickResult = kind === 'cherry_pick' ? await cherryPickCommit(repository, commit, before, committer) : await revertCommit(repository, commit, before, committer);
    if (!result.ok) {
      const { verb, done } = VERB[kind];
      throw badRequest(`Sorry, we cannot ${verb} this commit automatically. This commit may already have been ${done}, or a more recent commit may have updated some of its content.`);
    }
    const reason = `geoforge: ${VERB[kind].verb} ${sha} by ${actor.user.username}`;
    if (!(await updateRefIfAt(repository, `refs/heads/${branch}`, result.sha, before, reason))) {
      throw badRequest(`Could not update branch '${branch}': it was changed by another push while this commit was made; please retry`);
    }
    return { before, after: result.sha };
  });
  await notifyPush(ctx, project, actor, branch, moved.before, moved.after);
  return readCommit(repository, moved.after);
}
