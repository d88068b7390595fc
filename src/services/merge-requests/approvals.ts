import { inTransaction, type Db } from '../../db/connection.js';
import {
  approverUserIds,
  deleteApproval,
  deleteApprovalsOf,
  hasApproved,
  insertApproval,
  projectApprovalSettings,
  updateProjectApprovalSettings,
  type MergeRequestApprovalRow,
  type ProjectApprovalSettingsRow,
} from '../../db/tables/merge-request-approvals.js';
import { findMergeRequestById, updateMergeRequestRow, type MergeRequestRow } from '../../db/tables/merge-requests.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { usersByIds } from '../../db/tables/project-relations.js';
import type { UserRow } from '../../db/tables/users.js';
import { AppError, conflict, invalid, notFound } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';
import { can, canResetApprovals } from '../permissions.js';
import type { Actor } from '../users/authentication.js';
import type { SiteContext } from '../../site-context.js';
import type { MergeRequestChange } from './changes.js';
import { fireMergeRequestHooks } from './hooks.js';
import { mergeRequestNoteable } from '../issuables/noteables.js';
import { addSystemNote } from '../issuables/notes.js';
import { approvalAllowedBy, mergeRequestRuleState, type MergeRequestRuleState } from './approval-state.js';

/**
 * Merge request approvals (ee; issue 15, item 7; issue 25; GITLAB-NOTES 2.3 "Approvals"). What a
 * merge request needs comes from the approval rules in force and its approvals_before_merge
 * (approval-state.ts); merging is refused (405) while some approval is missing, and a push of new
 * commits drops the approvals when the project resets approvals on push.
 */

/** What the approval views show of one merge request. */
export interface ApprovalState {
  readonly required: number;
  readonly approvals: readonly MergeRequestApprovalRow[];
  /** Approvals still needed, never below 0 (GitLab's approvals_left, shown as approvals_missing in the GET). */
  readonly left: number;
  readonly userHasApproved: boolean;
  readonly userCanApprove: boolean;
  /** Each rule in force and how far it is (approval_rules_left, has_approval_rules). */
  readonly rules: MergeRequestRuleState;
}

/**
 * Whether no approval is missing (a merge needs this): every approval rule in force is satisfied,
 * and the implicit any-approver requirement of approvals_before_merge (approval-state.ts).
 */
export function isApproved(db: Db, mergeRequest: MergeRequestRow): boolean {
  return mergeRequestRuleState(db, mergeRequest).approved;
}

/**
 * Whether the actor may approve (EE MergeRequest#can_approve? and ApprovalState#eligible_for_approval_by?):
 * an open merge request, a caller who may write to the target project (a developer), not its
 * author unless the project allows authors to approve, who has not approved yet, and whose
 * approval counts for a rule in force.
 */
function canApprove(db: Db, actor: Actor | null, project: ProjectRow, mergeRequest: MergeRequestRow, rules: MergeRequestRuleState): boolean {
  if (!actor || mergeRequest.state !== 'opened' || !can(db, actor, 'push_code', project)) return false;
  if (mergeRequest.author_id === actor.user.id && !projectApprovalSettings(db, project.id).merge_requests_author_approval) return false;
  return !hasApproved(db, mergeRequest.id, actor.user.id) && approvalAllowedBy(rules, actor.user.id);
}

/** The approval state the views show, for the caller. */
function approvalState(db: Db, actor: Actor | null, project: ProjectRow, mergeRequest: MergeRequestRow): ApprovalState {
  const rules = mergeRequestRuleState(db, mergeRequest);
  return {
    required: rules.required,
    approvals: rules.approvals,
    left: rules.left,
    userHasApproved: !!actor && rules.approvals.some((approval) => approval.user_id === actor.user.id),
    userCanApprove: canApprove(db, actor, project, mergeRequest, rules),
    rules,
  };
}

/**
 * POST .../approve: 401 unless the caller can approve (GITLAB-NOTES 1.4), then 409 when `sha`
 * is given and is not the head the merge request shows; records the approval. Returns the merge
 * request as it is after the write.
 */
export function approveMergeRequest(ctx: SiteContext, actor: Actor, project: ProjectRow, mergeRequest: MergeRequestRow, sha: string | undefined): MergeRequestRow {
  const { db } = ctx;
  if (!canApprove(db, actor, project, mergeRequest, mergeRequestRuleState(db, mergeRequest))) throw new AppError('unauthorized');
  if (sha !== undefined && sha !== mergeRequest.head_sha) throw conflict(`SHA does not match HEAD of source branch: ${mergeRequest.head_sha ?? ''}`);
  return inTransaction(db, () => {
    const now = nowIso();
    insertApproval(db, mergeRequest.id, actor.user.id, now);
    return recordApprovalChange(ctx, actor, project, mergeRequest, 'approved', now);
  });
}

/** POST .../unapprove: 404 unless the caller has approved; removes the caller's own approval. */
export function unapproveMergeRequest(ctx: SiteContext, actor: Actor, project: ProjectRow, mergeRequest: MergeRequestRow): MergeRequestRow {
  return inTransaction(ctx.db, () => {
    if (!deleteApproval(ctx.db, mergeRequest.id, actor.user.id)) throw notFound();
    return recordApprovalChange(ctx, actor, project, mergeRequest, 'unapproved', nowIso());
  });
}

/** What follows an approval or its removal, in its transaction: updated_at, GitLab's system note (EE SystemNoteService.approve_mr) and the `approved` / `unapproved` hook. */
function recordApprovalChange(ctx: SiteContext, actor: Actor, project: ProjectRow, mergeRequest: MergeRequestRow, action: 'approved' | 'unapproved', now: string): MergeRequestRow {
  updateMergeRequestRow(ctx.db, mergeRequest.id, { updated_at: now });
  addSystemNote(ctx.db, mergeRequestNoteable(project, mergeRequest), actor.user.id, `${action} this merge request`, now);
  const row = findMergeRequestById(ctx.db, mergeRequest.id)!;
  fireMergeRequestHooks(ctx, actor.user, project, row, action);
  return row;
}

/**
 * A push of new commits to the source branch drops the approvals when the target project says so
 * (reset_approvals_on_push, on by default as in GitLab): what was approved is no longer what
 * would merge. Returns how many were dropped.
 */
function resetApprovalsAfterPush(db: Db, mergeRequest: MergeRequestRow): number {
  if (!projectApprovalSettings(db, mergeRequest.target_project_id).reset_approvals_on_push) return 0;
  return deleteApprovalsOf(db, mergeRequest.id);
}

/**
 * PUT .../reset_approvals (GitLab 15.4+): drops every approval of the merge request. Only the bot
 * user of a project or group access token may (401 otherwise, as GitLab's `unauthorized!`).
 */
export function resetApprovals(ctx: SiteContext, actor: Actor, project: ProjectRow, mergeRequest: MergeRequestRow): void {
  if (!canResetApprovals(ctx.db, actor, project)) throw new AppError('unauthorized');
  inTransaction(ctx.db, () => {
    deleteApprovalsOf(ctx.db, mergeRequest.id);
    updateMergeRequestRow(ctx.db, mergeRequest.id, { updated_at: nowIso() });
  });
}

/** The change listener (changes.ts) that resets approvals when a push recorded a new version, in the push's transaction. */
export function resetApprovalsOnPush(ctx: SiteContext, change: MergeRequestChange): void {
  if (change.action === 'pushed') resetApprovalsAfterPush(ctx.db, change.mergeRequest);
}

/**
 * POST .../merge_requests/:iid/approvals (`approvals_required`): the merge request's own
 * requirement, which may not go below its project's (EE validate_approvals_before_merge).
 */
export function setApprovalsRequired(db: Db, mergeRequest: MergeRequestRow, required: number): MergeRequestRow {
  const projectRequired = projectApprovalSettings(db, mergeRequest.target_project_id).approvals_before_merge;
  if (required < projectRequired) {
    throw invalid({ approvals_before_merge: [`must be greater than or equal to the project's approvals before merge (${projectRequired})`] });
  }
  return inTransaction(db, () => {
    updateMergeRequestRow(db, mergeRequest.id, { approvals_before_merge: required, updated_at: nowIso() });
    return findMergeRequestById(db, mergeRequest.id)!;
  });
}

/** POST /projects/:id/approvals: changes the given settings; an approvals_before_merge below 0 is a validation error. */
export function updateApprovalSettings(db: Db, project: ProjectRow, changes: Partial<Record<keyof ProjectApprovalSettingsRow, number>>): void {
  if (changes.approvals_before_merge !== undefined && changes.approvals_before_merge < 0) {
    throw invalid({ approvals_before_merge: ['must be greater than or equal to 0'] });
  }
  inTransaction(db, () => updateProjectApprovalSettings(db, project.id, changes));
}

/** What the approvals view shows of a merge request: its state for the caller, the approving users and the suggested approvers, one query each. */
export function loadApprovalView(db: Db, actor: Actor | null, project: ProjectRow, mergeRequest: MergeRequestRow): { state: ApprovalState; users: ReadonlyMap<number, UserRow>; approvers: UserRow[] } {
  const state = approvalState(db, actor, project, mergeRequest);
  const own = approverUserIds(db, 'MergeRequest', mergeRequest.id);
  const approverIds = own.length ? own : approverUserIds(db, 'Project', project.id);
  const users = usersByIds(db, [...state.approvals.map((approval) => approval.user_id), ...approverIds]);
  return { state, users, approvers: approverIds.flatMap((id) => users.get(id) ?? []) };
}

/** The project's approval settings and its suggested approvers. */
export function loadProjectApprovals(db: Db, project: ProjectRow): { settings: ProjectApprovalSettingsRow; approvers: UserRow[] } {
  const ids = approverUserIds(db, 'Project', project.id);
  const users = usersByIds(db, ids);
  return { settings: projectApprovalSettings(db, project.id), approvers: ids.flatMap((id) => users.get(id) ?? []) };
}
