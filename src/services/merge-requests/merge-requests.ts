import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { nextInternalId } from '../../db/tables/internal-ids.js';
import { labelsOfTargets } from '../../db/tables/label-links.js';
import type { LabelRow } from '../../db/tables/labels.js';
import {
  addMergeRequestsCount,
  findMergeRequestById,
  findMergeRequestByIid,
  findOpenMergeRequestForPair,
  insertMergeRequest,
  updateMergeRequestRow,
  type MergeRequestColumns,
  type MergeRequestRow,
} from '../../db/tables/merge-requests.js';
import { reviewerIdsOf, setMergeRequestReviewers } from '../../db/tables/merge-request-reviewers.js';
import { findProjectById, type ProjectRow } from '../../db/tables/projects.js';
import { setSubscription } from '../../db/tables/subscriptions.js';
import { AppError, badRequest, forbidden, notFound } from '../../errors.js';
import { repositoryOf } from '../../git/in-repository.js';
import { branchCommit, branchCommits } from '../../git/refs.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';
import { can, canReadMergeRequest, canUpdateMergeRequest } from '../permissions.js';
import type { Actor } from '../users/authentication.js';
import { resolveMergeRequestInput, type MergeRequestInput } from './attributes.js';
import { changedColumns } from '../issuables/changes.js';
import { replaceLabelLinks } from '../issuables/label-links.js';
import { announceMergeRequestChange, mergeRequestChange } from './changes.js';
import { cacheClosingIssues } from './closing-issues.js';
import { refreshMergeRequestHead } from './heads.js';
import { removeMergeRequestRows } from './removal.js';
import { reviewRequestedTodos } from './todos.js';

/**
 * The merge request `iid` of the (target) project if the actor may read it: 404 (`404 Not found`,
 * or `404 <resource> Not Found`) otherwise, an unknown iid and an unreadable one alike.
 */
export function findReadableMergeRequest(db: Db, actor: Actor | null, project: ProjectRow, iid: number, resource = ''): MergeRequestRow {
  const mergeRequest = findMergeRequestByIid(db, project.id, iid);
  if (!mergeRequest || !canReadMergeRequest(db, actor, project)) throw notFound(resource);
  return mergeRequest;
}

/** Like findReadableMergeRequest, then 403 unless the actor may edit it (canUpdateMergeRequest). */
export function findEditableMergeRequest(db: Db, actor: Actor, project: ProjectRow, iid: number): MergeRequestRow {
  const mergeRequest = findReadableMergeRequest(db, actor, project, iid);
  if (!canUpdateMergeRequest(db, actor, project, mergeRequest)) throw forbidden();
  return mergeRequest;
}

/** POST /projects/:id/merge_requests: the attributes of an edit plus the branches, the target project and the approvals asked for. */
export interface MergeRequestCreate extends MergeRequestInput {
  readonly title: string;
  readonly source_branch: string;
  readonly target_branch: string;
  readonly target_project_id?: number;
  readonly approvals_before_merge?: number;
}

/**
 * The project a merge request from `source` lands in: the source itself, or (for a fork) its
 * upstream, which must be the project the fork was made from (422) and take merge requests from
 * the actor (422, as GitLab's create_merge_request_in).
 */
function targetProjectOf(db: Db, actor: Actor, source: ProjectRow, targetProjectId: number | undefined): ProjectRow {
  if (targetProjectId === undefined || targetProjectId === source.id) return source;
  const target = findProjectById(db, targetProjectId);
  if (!target || source.forked_from_project_id !== target.id || !can(db, actor, 'read_project', target)) {
    throw new AppError('unprocessable', 'Source project is not a fork of the target project');
  }
  if (!can(db, actor, 'create_merge_request_in', target)) throw new AppError('unprocessable', 'You are not allowed to create merge requests in the target project');
  return target;
}

/**
 * GitLab's rule for `approvals_before_merge` on create (SPEC "Merge request creation"): omitted,
 * the merge request inherits the target project's value (stored as null); given, it takes effect
 * only when the project's value is above zero and the given value is above the project's.
 */
function approvalsBeforeMerge(target: ProjectRow, asked: number | undefined): number | null {
  if (asked === undefined) return null;
  return target.approvals_before_merge > 0 && asked > target.approvals_before_merge ? asked : null;
}

/**
 * Opens a merge request from a branch of `source` (the caller checked create_merge_request_from)
 * into a branch of the same project or of the project it was forked from. The branches are
 * checked in git first (400 naming a missing one; 422 for the same branch of the same project),
 * then, in one transaction, an open duplicate (409), the iid, the row, its labels (unknown titles
 * become project labels), its reviewers (each with a `review_requested` todo), the author's and
 * assignee's subscriptions and what listeners write.
 * Then the target repository gets refs/merge-requests/<iid>/head (a fork's commits fetched into
 * it) and the first diff version is recorded; merge_status stays `unchecked` for the background
 * check.
 */
export async function createMergeRequest(ctx: SiteContext, actor: Actor, source: ProjectRow, input: MergeRequestCreate): Promise<MergeRequestRow> {
  const { db } = ctx;
  const target = targetProjectOf(db, actor, source, input.target_project_id);
  if (target.id === source.id && input.source_branch === input.target_branch) throw new AppError('unprocessable', "You can't use same project/branch for source and target");
  const { source: head, target: targetHead } = await readBranches(ctx, source, input.source_branch, target, input.target_branch);
  if (!head) throw badRequest(`Source branch "${input.source_branch}" does not exist`);
  if (!targetHead) throw badRequest(`Target branch "${input.target_branch}" does not exist`);

  const created = inTransaction(db, () => {
    const duplicate = findOpenMergeRequestForPair(db, source.id, input.source_branch, target.id, input.target_branch);
    if (duplicate) throw new AppError('conflict', `Cannot Create: This merge request already exists: ${JSON.stringify([duplicate.title])}`);
    const resolved = resolveMergeRequestInput(db, target, [], input, can(db, actor, 'admin_merge_request', target));
    const now = nowIso();
    const id = insertMergeRequest(db, {
      ...resolved.columns,
      target_project_id: target.id,
      source_project_id: source.id,
      iid: nextInternalId(db, 'merge_requests', target.id),
      source_branch: input.source_branch,
      target_branch: input.target_branch,
      title: resolved.columns.title ?? input.title,
      author_id: actor.user.id,
      head_sha: head,
      approvals_before_merge: approvalsBeforeMerge(target, input.approvals_before_merge),
      created_at: now,
      updated_at: now,
    });
    addMergeRequestsCount(db, target.id, 1);
    const labels = replaceLabelLinks(db, 'MergeRequest', id, [], resolved.labels ?? [], now);
    const mergeRequest = findMergeRequestById(db, id)!;
    if (resolved.reviewerIds?.length) reviewRequestedTodos(db, mergeRequest, target, actor.user, setMergeRequestReviewers(db, id, resolved.reviewerIds, now), now);
    // GitLab subscribes the author and the assignee at once (GITLAB-NOTES 2.3 Subscribe).
    for (const userId of new Set([mergeRequest.author_id, ...(mergeRequest.assignee_id === null ? [] : [mergeRequest.assignee_id])])) {
      setSubscription(db, userId, 'MergeRequest', id, null, true, now);
    }
    announceMergeRequestChange(ctx, mergeRequestChange('opened', actor.user, target, null, mergeRequest, labels));
    return mergeRequest;
  });
  // A push between the branch read and the commit found no merge request to refresh: take the branch's head now
  // (and the target's, the first version's start, in the same git call).
  const now = await readBranches(ctx, source, input.source_branch, target, input.target_branch);
  await refreshMergeRequestHead(ctx, created, now.source ?? head, { startSha: now.target });
  return findMergeRequestById(db, created.id) ?? created;
}

/** The heads of a source and a target branch: one git call when both are in one repository, two for a fork's. */
async function readBranches(ctx: SiteContext, source: ProjectRow, sourceBranch: string, target: ProjectRow, targetBranch: string) {
  if (source.id === target.id) {
    const heads = await branchCommits(repositoryOf(ctx, source), [sourceBranch, targetBranch]);
    return { source: heads.get(sourceBranch) ?? null, target: heads.get(targetBranch) ?? null };
  }
  const [sourceHead, targetHead] = await Promise.all([branchCommit(repositoryOf(ctx, source), sourceBranch), branchCommit(repositoryOf(ctx, target), targetBranch)]);
  return { source: sourceHead, target: targetHead };
}

/** The labels of one merge request, for the edit and the views. */
function labelsOfMergeRequest(db: Db, mergeRequestId: number): LabelRow[] {
  return labelsOfTargets(db, 'MergeRequest', [mergeRequestId]).get(mergeRequestId) ?? [];
}

/** An edit: attributes, labels, and `state_event` (close or reopen). */
export type MergeRequestUpdate = MergeRequestInput & { readonly state_event?: 'close' | 'reopen' };

/** The duplicate check of a write that (re)opens a pair: 409 as on create. */
function assertNoOpenDuplicate(db: Db, mergeRequest: MergeRequestRow, targetBranch: string): void {
  const duplicate = findOpenMergeRequestForPair(db, mergeRequest.source_project_id ?? 0, mergeRequest.source_branch, mergeRequest.target_project_id, targetBranch);
  if (duplicate && duplicate.id !== mergeRequest.id) throw new AppError('conflict', `Cannot Create: This merge request already exists: ${JSON.stringify([duplicate.title])}`);
}

/**
 * Edits a merge request the actor may edit (the caller loaded it with findEditableMergeRequest).
 * A new target branch must exist (400) and differ from a same-project source (422); it resets
 * mergeability and records a version against the new target. Closing sets closed_at and
 * closed_by; reopening (GITLAB-NOTES decision 5: back to `opened`) happens only while the source
 * branch exists, as GitLab's reopenable?, and records a version for the current source head. A
 * merged merge request neither closes nor reopens. updated_at moves only when something changed.
 */
export async function updateMergeRequest(ctx: SiteContext, actor: Actor, project: ProjectRow, loaded: MergeRequestRow, input: MergeRequestUpdate): Promise<MergeRequestRow> {
  const { db } = ctx;
  const sourceRepository = loaded.source_project_id === null ? null : repositoryOf(ctx, { id: loaded.source_project_id });
  if (input.target_branch !== undefined && input.target_branch !== loaded.target_branch) {
    if (loaded.source_project_id === project.id && input.target_branch === loaded.source_branch) throw new AppError('unprocessable', "You can't use same project/branch for source and target");
    if (!(await branchCommit(repositoryOf(ctx, project), input.target_branch))) throw badRequest(`Target branch "${input.target_branch}" does not exist`);
  }
  const reopenHead = input.state_event === 'reopen' && loaded.state === 'closed' && sourceRepository ? await branchCommit(sourceRepository, loaded.source_branch) : null;

  const { mergeRequest, headsMoved } = inTransaction(db, () => {
    const before = findMergeRequestById(db, loaded.id)!;
    const currentLabels = labelsOfMergeRequest(db, before.id);
    const resolved = resolveMergeRequestInput(db, project, currentLabels, input, can(db, actor, 'admin_merge_request', project));
    const now = nowIso();
    const columns: MergeRequestColumns = { ...resolved.columns };
    if (input.state_event === 'close' && before.state === 'opened') Object.assign(columns, { state: 'closed', closed_at: now, closed_by_id: actor.user.id });
    if (input.state_event === 'reopen' && before.state === 'closed' && reopenHead) Object.assign(columns, { state: 'opened', closed_at: null, closed_by_id: null });
    const targetMoved = columns.target_branch !== undefined && columns.target_branch !== before.target_branch;
    if (targetMoved && before.state === 'opened') Object.assign(columns, { merge_status: 'unchecked' });
    if ((columns.state ?? before.state) === 'opened') assertNoOpenDuplicate(db, before, columns.target_branch ?? before.target_branch);
    const labels = resolved.labels ? replaceLabelLinks(db, 'MergeRequest', before.id, currentLabels, resolved.labels, now) : { added: [], removed: [] };
    const reviewersBefore = reviewerIdsOf(db, before.id);
    const newReviewers = resolved.reviewerIds ? setMergeRequestReviewers(db, before.id, resolved.reviewerIds, now) : [];
    const reviewersChanged = resolved.reviewerIds !== null && (newReviewers.length > 0 || resolved.reviewerIds.length !== reviewersBefore.length);
    const changed = Object.keys(changedColumns(before, { ...before, ...columns })).length > 0 || labels.added.length + labels.removed.length > 0 || reviewersChanged;
    if (changed) updateMergeRequestRow(db, before.id, { ...columns, updated_at: now, last_edited_at: now, last_edited_by_id: actor.user.id });
    const after = findMergeRequestById(db, before.id)!;
    if (after.title !== before.title || after.description !== before.description || after.target_branch !== before.target_branch) cacheClosingIssues(ctx, after);
    if (newReviewers.length) reviewRequestedTodos(db, after, project, actor.user, newReviewers, now);
    if (changed) {
      const action = after.state === before.state ? 'updated' : after.state === 'closed' ? 'closed' : 'reopened';
      announceMergeRequestChange(ctx, mergeRequestChange(action, actor.user, project, before, after, labels));
    }
    return { mergeRequest: after, headsMoved: after.state === 'opened' && (targetMoved || after.state !== before.state) };
  });
  if (!headsMoved) return mergeRequest;
  const head = reopenHead ?? mergeRequest.head_sha;
  if (head) await refreshMergeRequestHead(ctx, mergeRequest, head, { newTarget: true });
  return findMergeRequestById(db, mergeRequest.id) ?? mergeRequest;
}

/** Deletes a merge request and everything that points at it. The caller checked destroy_merge_request. */
export function deleteMergeRequest(ctx: SiteContext, actor: Actor, project: ProjectRow, loaded: MergeRequestRow): void {
  inTransaction(ctx.db, () => {
    const mergeRequest = findMergeRequestById(ctx.db, loaded.id);
    if (!mergeRequest) return;
    announceMergeRequestChange(ctx, mergeRequestChange('deleted', actor.user, project, mergeRequest, mergeRequest));
    removeMergeRequestRows(ctx.db, [mergeRequest.id]);
  });
}
