import type { MergeRequestRow } from '../db/tables/merge-requests.js';
import type { ProjectApprovalSettingsRow } from '../db/tables/merge-request-approvals.js';
import type { UserRow } from '../db/tables/users.js';
import type { ApprovalState } from '../services/merge-requests/approvals.js';
import { approvalRuleShort } from './approval-rules.js';
import { flag } from './column-values.js';
import { mergeRequestHead } from './merge-requests.js';
import { userBasic, type EntityContext } from './users.js';

/** Who approved, as GitLab lists them (`{user: UserBasic}`), from users preloaded by id. */
const approvedBy = (state: ApprovalState, users: ReadonlyMap<number, UserRow>, ctx: EntityContext) =>
  state.approvals.flatMap((approval) => {
    const user = users.get(approval.user_id);
    return user ? [{ user: userBasic(user, ctx) }] : [];
  });

/**
 * MergeRequestApprovals (ee; SPEC "Approval status"): the merge request's summary, its
 * requirement, who approved, and the caller's position. The GET shows the approvals still needed
 * as `approvals_missing`; approve and unapprove as `approvals_left`.
 */
export function mergeRequestApprovalsView(
  row: MergeRequestRow,
  state: ApprovalState,
  users: ReadonlyMap<number, UserRow>,
  approvers: readonly UserRow[],
  ctx: EntityContext,
  leftKey: 'approvals_missing' | 'approvals_left',
) {
  return {
    ...mergeRequestHead(row),
    merge_status: row.merge_status,
    approvals_required: state.required,
    [leftKey]: state.left,
    approved_by: approvedBy(state, users, ctx),
    approvers: approvers.map((user) => ({ user: userBasic(user, ctx) })),
    approver_groups: [],
    user_has_approved: state.userHasApproved,
    user_can_approve: state.userCanApprove,
    // GitLab 12.3+: the approval rules in force (ApprovalState entity).
    approved: state.rules.approved,
    approval_rules_left: state.rules.rules.filter((progress) => !progress.approved).map((progress) => approvalRuleShort(progress.rule)),
    has_approval_rules: state.rules.rules.length > 0,
  };
}

/** A project's approval settings (ee; GET and POST /projects/:id/approvals). */
export function projectApprovalSettingsView(settings: ProjectApprovalSettingsRow, approvers: readonly UserRow[], ctx: EntityContext) {
  return {
    approvers: approvers.map((user) => ({ user: userBasic(user, ctx) })),
    approver_groups: [],
    approvals_before_merge: settings.approvals_before_merge,
    reset_approvals_on_push: flag(settings.reset_approvals_on_push),
    disable_overriding_approvers_per_merge_request: flag(settings.disable_overriding_approvers_per_merge_request),
    merge_requests_author_approval: flag(settings.merge_requests_author_approval),
  };
}
