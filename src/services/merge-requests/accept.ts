import { inTransaction } from '../../db/connection.js';
import type { PipelineRow } from '../../db/tables/ci.js';
import { findMergeRequestById, updateMergeRequestRow, type MergeRequestRow } from '../../db/tables/merge-requests.js';
import { hasUnresolvedNotes } from '../../db/tables/notes.js';
import { projectFullPaths, usersByIds } from '../../db/tables/project-relations.js';
import { findProjectById, type ProjectRow } from '../../db/tables/projects.js';
import { isWorkInProgress } from '../../entities/merge-requests.js';
import { AppError, conflict } from '../../errors.js';
import { buildMerge, updateRefIfAt } from '../../git/merges.js';
import { BLANK_SHA } from '../../git/object-names.js';
import { repositoryOf } from '../../git/in-repository.js';
import { withRefLock } from '../../git/ref-lock.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';
import { can } from '../permissions.js';
import { notifyPush } from '../repository/commit-writer.js';
import { canMergeToBranch, refPolicyFor } from '../repository/ref-policy.js';
import type { Actor } from '../users/authentication.js';
import { isApproved } from './approvals.js';
import { announceMergeRequestChange, mergeRequestChange } from './changes.js';
import { closeIssuesOfMergedRequest, closingIssuesVisibleTo } from './closing-issues.js';
import { mergeRequestNoteable } from '../issuables/noteables.js';
import { addSystemNote } from '../issuables/notes.js';
import { currentMergeHeads, type MergeHeads } from './merge-heads.js';
import { defaultMergeCommitMessage } from './mergeability.js';
import { headPipelineOf, isActivePipeline } from './detailed-status.js';

/** What an accept asks for (PUT .../merge; SPEC "Merge requests"). */
export interface AcceptParams {
  readonly mergeCommitMessage?: string;
  readonly squashCommitMessage?: string;
  readonly squash?: boolean;
  readonly shouldRemoveSourceBranch?: boolean;
  readonly mergeWhenPipelineSucceeds?: boolean;
  readonly sha?: string;
}

const methodNotAllowed = () => new AppError('not_allowed', '405 Method Not Allowed');
const cannotBeMerged = () => new AppError('not_allowed', 'Branch cannot be merged');
const notOpen = () => new AppError('not_acceptable', '406 Method Not Allowed');

/**
 * GitLab's mergeable_state? without the open check: not a work in progress, every discussion
 * resolved when the project requires it, the head pipeline succeeded when the project requires it
 * (skipped when the merge is to wait for that pipeline, still running), and in the ee edition no
 * approval missing, and not before `merge_after`.
 */
function assertMergeableState(ctx: SiteContext, project: ProjectRow, mergeRequest: MergeRequestRow, pipeline: PipelineRow | undefined, skipCiCheck: boolean): void {
  if (isWorkInProgress(mergeRequest.title)) throw methodNotAllowed();
  if (project.only_allow_merge_if_all_discussions_are_resolved && hasUnresolvedNotes(ctx.db, 'MergeRequest', mergeRequest.id)) throw methodNotAllowed();
  // GitLab 10.x: with no pipeline at all the requirement holds (mergeable_ci_state?).
  if (!skipCiCheck && project.only_allow_merge_if_pipeline_succeeds && pipeline && pipeline.status !== 'success' && pipeline.status !== 'skipped') throw methodNotAllowed();
  if (ctx.config.edition === 'ee' && !isApproved(ctx.db, mergeRequest)) throw methodNotAllowed();
  // GitLab 17.8's scheduled merge: not before merge_after.
  if (mergeRequest.merge_after !== null && Date.parse(mergeRequest.merge_after) > Date.now()) throw methodNotAllowed();
}

/**
 * PUT .../merge (issue 15, item 5), with the checks in the order GITLAB-NOTES 2.3 records and the
 * codes of decision 1: 401 unless the caller may push or merge to the target branch (its
 * protection's levels); 406 unless open;
 * 405 for a work in progress, unresolved discussions, a pipeline that has not succeeded or missing
 * approvals; 405 `Branch cannot be merged` when the current heads conflict or a branch is gone;
 * 409 when `sha` is not the source head. With `merge_when_pipeline_succeeds` and an active head
 * pipeline the merge request is flagged and stays open; otherwise it merges now. Resolves to the
 * merge request as stored afterwards.
 */
export async function acceptMergeRequest(ctx: SiteContext, project: ProjectRow, actor: Actor, mergeRequest: MergeRequestRow, params: AcceptParams): Promise<MergeRequestRow> {
  if (!canMergeToBranch(refPolicyFor(ctx.db, actor, project), mergeRequest.target_branch)) throw new AppError('unauthorized');
  if (mergeRequest.state !== 'opened') throw notOpen();
  return mergeNow(ctx, project, actor, mergeRequest, params);
}

const shaMismatch = (head: string | null) => conflict(`SHA does not match HEAD of source branch: ${head ?? ''}`);

/** Whether the stored check was made on exactly these heads (then its answer, and its merge ref, hold). */
const checkedOn = (mergeRequest: MergeRequestRow, heads: MergeHeads): boolean =>
  mergeRequest.merge_status_source_sha === heads.source && mergeRequest.merge_status_target_sha === heads.target;

/**
 * Flags the merge request to merge when the pipeline of `sha` succeeds, remembering who asked and
 * with what (merge_params), with GitLab's system note.
 */
function setMergeWhenPipelineSucceeds(ctx: SiteContext, project: ProjectRow, actor: Actor, mergeRequest: MergeRequestRow, params: AcceptParams, sha: string): MergeRequestRow {
  return inTransaction(ctx.db, () => {
    const current = findMergeRequestById(ctx.db, mergeRequest.id);
    if (!current || current.state !== 'opened') throw notOpen();
    const now = nowIso();
    updateMergeRequestRow(ctx.db, mergeRequest.id, {
      merge_when_pipeline_succeeds: 1,
      merge_user_id: actor.user.id,
      merge_params: JSON.stringify(params),
      updated_at: now,
    });
    addSystemNote(ctx.db, mergeRequestNoteable(project, current), actor.user.id, `enabled an automatic merge when the pipeline for ${sha} succeeds`, now);
    return findMergeRequestById(ctx.db, mergeRequest.id)!;
  });
}

/** What the locked part of a merge did: flagged the merge request to wait for its pipeline, or merged it (the target moved from `before` to `after`). */
type MergeOutcome =
  | { readonly kind: 'flagged'; readonly row: MergeRequestRow }
  | { readonly kind: 'merged'; readonly row: MergeRequestRow; readonly before: string; readonly after: string; readonly source: string };

/** How many times a merge is rebuilt when a push outside this process moved the target branch under it. */
const MERGE_ATTEMPTS = 3;

/**
 * Merges now: under the target branch's lock, re-reads the merge request (a concurrent accept that
 * won makes this a 406), takes the current heads, checks the merge request as it is now (405 for
 * its state, as assertMergeableState; 405 when a branch is gone or the check of these heads found
 * a conflict; 409 on a `sha` mismatch; with `merge_when_pipeline_succeeds` and an active pipeline
 * on the source head, flags it instead), builds the merge or squash commit and
 * moves the target branch by compare-and-swap from the exact head it was built on, then stores the
 * merged state. After the lock: the after-push path (webhooks, events, Geo, other merge requests' checks)
 * and the source branch's removal when asked for. Either the branch moved and the merge request
 * is merged, or nothing changed.
 */
async function mergeNow(ctx: SiteContext, project: ProjectRow, actor: Actor, mergeRequest: MergeRequestRow, params: AcceptParams): Promise<MergeRequestRow> {
  const repository = repositoryOf(ctx, project);
  const targetRef = `refs/heads/${mergeRequest.target_branch}`;
  const squash = params.squash ?? mergeRequest.squash === 1;
  const user = actor.user;
  const identity = { name: user.name, email: user.email };
  const outcome = await withRefLock(repository, targetRef, async (): Promise<MergeOutcome> => {
    for (let attempt = 0; attempt < MERGE_ATTEMPTS; attempt += 1) {
      const current = findMergeRequestById(ctx.db, mergeRequest.id);
      if (!current || current.state !== 'opened') throw notOpen();
      const heads = await currentMergeHeads(ctx, current);
      // The merge request as it is now (approvals, discussions, the title), with the pipeline of its current head.
      const pipeline = headPipelineOf(ctx.db, current, heads.source);
      const waits = !!params.mergeWhenPipelineSucceeds && !!pipeline && isActivePipeline(pipeline);
      assertMergeableState(ctx, project, current, pipeline, waits);
      if (!heads.source || !heads.target) throw cannotBeMerged();
      const checked = checkedOn(current, heads);
      if (checked && current.merge_status === 'cannot_be_merged') throw cannotBeMerged();
      if (params.sha !== undefined && params.sha !== heads.source) throw shaMismatch(heads.source);
      if (waits) return { kind: 'flagged', row: setMergeWhenPipelineSucceeds(ctx, project, actor, current, params, heads.source) };
      const message = squash ? params.squashCommitMessage || current.title : params.mergeCommitMessage || defaultMergeCommitMessage(ctx, current, closingReferencesOf(ctx, actor, current));
      // The check of these very heads already merged their trees into the merge ref: its tree is the merge's.
      const mergedTree = checked && current.merge_status === 'can_be_merged' && current.merge_ref_sha ? `${current.merge_ref_sha}^{tree}` : undefined;
      // A squash commit is the merge request author's work, committed by the merger (GitLab's SquashService).
      const author = squash ? (usersByIds(ctx.db, [current.author_id]).get(current.author_id) ?? user) : user;
      const built = await buildMerge(repository, heads.target, heads.source, {
        squash,
        message,
        author: { name: author.name, email: author.email },
        committer: identity,
        mergedTree,
      });
      if (!built.ok) {
        inTransaction(ctx.db, () =>
          updateMergeRequestRow(ctx.db, current.id, { merge_status: 'cannot_be_merged', merge_status_source_sha: heads.source, merge_status_target_sha: heads.target }),
        );
        throw cannotBeMerged();
      }
      const reason = `geoforge: merge !${current.iid} by ${user.username}`;
      if (!(await updateRefIfAt(repository, targetRef, built.sha, heads.target, reason))) continue;
      const row = inTransaction(ctx.db, () => {
        const now = nowIso();
        updateMergeRequestRow(ctx.db, current.id, {
          state: 'merged',
          merge_commit_sha: built.sha,
          squash_commit_sha: squash ? built.sha : null,
          merged_by_id: user.id,
          merged_at: now,
          merge_status: 'can_be_merged',
          merge_status_source_sha: heads.source,
          merge_status_target_sha: heads.target,
          merge_when_pipeline_succeeds: 0,
          merge_error: null,
          updated_at: now,
        });
        const row = findMergeRequestById(ctx.db, current.id)!;
        announceMergeRequestChange(ctx, mergeRequestChange('merged', user, project, current, row));
        return row;
      });
      return { kind: 'merged', row, before: heads.target, after: built.sha, source: heads.source };
    }
    throw conflict('The target branch moved while the merge was made; please retry');
  });
  if (outcome.kind === 'flagged') return outcome.row;
  const merged = outcome;
  await notifyPush(ctx, project, actor, mergeRequest.target_branch, merged.before, merged.after);
  try {
    closeIssuesOfMergedRequest(ctx, actor, merged.row);
  } catch (error) {
    // The merge stands; an issue left open is the only loss, and it can be closed by hand.
    ctx.log.error({ err: error, merge_request_id: mergeRequest.id }, 'closing the issues of a merged merge request failed');
  }
  if (params.shouldRemoveSourceBranch ?? merged.row.force_remove_source_branch === 1) await removeSourceBranch(ctx, actor, merged.row, merged.source);
  return findMergeRequestById(ctx.db, mergeRequest.id)!;
}

/** The issues the merge closes, as the merge commit message names them (`#1`, or `group/project#1` elsewhere), those the merger can see. */
function closingReferencesOf(ctx: SiteContext, actor: Actor, mergeRequest: MergeRequestRow): string[] {
  const issues = closingIssuesVisibleTo(ctx.db, actor, mergeRequest);
  const paths = projectFullPaths(ctx.db, issues.map((issue) => issue.project_id));
  return issues.map((issue) => (issue.project_id === mergeRequest.target_project_id ? `#${issue.iid}` : `${paths.get(issue.project_id)}#${issue.iid}`));
}

/**
 * Removes the source branch after the merge (GitLab's can_remove_source_branch?): only when the
 * caller may push to the source project, the branch is not its default one, and it still points
 * at the head that was merged (a push meanwhile keeps it). A refusal is logged, never an error:
 * the merge has happened.
 */
async function removeSourceBranch(ctx: SiteContext, actor: Actor, mergeRequest: MergeRequestRow, mergedHead: string): Promise<void> {
  const source = mergeRequest.source_project_id === null ? undefined : findProjectById(ctx.db, mergeRequest.source_project_id);
  if (!source || source.default_branch === mergeRequest.source_branch || !can(ctx.db, actor, 'push_code', source)) return;
  const repository = repositoryOf(ctx, source);
  const removed = await updateRefIfAt(repository, `refs/heads/${mergeRequest.source_branch}`, BLANK_SHA, mergedHead, `geoforge: source branch of !${mergeRequest.iid} removed after the merge`);
  if (!removed) {
    ctx.log.info({ merge_request_id: mergeRequest.id }, 'source branch moved after the merge: kept');
    return;
  }
  await notifyPush(ctx, source, actor, mergeRequest.source_branch, mergedHead, BLANK_SHA);
}

/**
 * PUT or POST .../cancel_merge_when_pipeline_succeeds (GITLAB-NOTES decision 2): 401 unless the
 * caller may merge into the target branch or wrote the merge request (GitLab's
 * can_cancel_merge_when_pipeline_succeeds?: can_be_merged_by? || author), 405 when merged or closed,
 * 406 when the flag is not set; clears the flag with GitLab's system note.
 */
export function cancelMergeWhenPipelineSucceeds(ctx: SiteContext, project: ProjectRow, actor: Actor, mergeRequest: MergeRequestRow): MergeRequestRow {
  const mayMerge = canMergeToBranch(refPolicyFor(ctx.db, actor, project), mergeRequest.target_branch);
  if (!mayMerge && mergeRequest.author_id !== actor.user.id) throw new AppError('unauthorized');
  if (mergeRequest.state !== 'opened') throw methodNotAllowed();
  if (!mergeRequest.merge_when_pipeline_succeeds) throw new AppError('not_acceptable', '406 Not Acceptable');
  return inTransaction(ctx.db, () => {
    const now = nowIso();
    updateMergeRequestRow(ctx.db, mergeRequest.id, { merge_when_pipeline_succeeds: 0, merge_user_id: null, merge_params: null, updated_at: now });
    addSystemNote(ctx.db, mergeRequestNoteable(project, mergeRequest), actor.user.id, 'canceled the automatic merge', now);
    return findMergeRequestById(ctx.db, mergeRequest.id)!;
  });
}
