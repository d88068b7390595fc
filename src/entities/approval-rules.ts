import type { MergeRequestApprovalRuleRow, ProjectApprovalRuleRow } from '../db/tables/approval-rules.js';
import type { LoadedRule, MergeRequestRuleState, RuleProgress } from '../services/merge-requests/approval-state.js';
import type { RuleRelations } from '../services/merge-requests/approval-rules.js';
import { flag } from './column-values.js';
import { group } from './groups.js';
import { protectedBranchEntity } from './protected-refs.js';
import { userBasic, type EntityContext } from './users.js';

const usersOf = (ids: readonly number[], relations: RuleRelations, ctx: EntityContext) => ids.flatMap((id) => relations.users.get(id) ?? []).map((user) => userBasic(user, ctx));

/** ApprovalRuleShort: what approval_rules_left lists. */
export const approvalRuleShort = (rule: LoadedRule) => ({ id: rule.row.id, name: rule.row.name, rule_type: rule.row.rule_type });

/** ApprovalRule (ee): the rule, who may approve under it (users and the groups' members), its users and groups. */
function approvalRuleView(rule: LoadedRule, relations: RuleRelations, ctx: EntityContext) {
  return {
    ...approvalRuleShort(rule),
    eligible_approvers: usersOf(rule.eligibleIds, relations, ctx),
    approvals_required: rule.row.approvals_required,
    users: usersOf(rule.userIds, relations, ctx),
    groups: rule.groupIds.flatMap((id) => relations.groups.get(id) ?? []).map((row) => group(row, ctx)),
    // Every group a rule names is one the caller could see when it was set (services/merge-requests/approval-rules.ts).
    contains_hidden_groups: false,
    report_type: null,
  };
}

/** ProjectApprovalRule: with the protected branches it is limited to. */
export function projectApprovalRuleView(rule: LoadedRule, relations: RuleRelations, ctx: EntityContext) {
  return {
    ...approvalRuleView(rule, relations, ctx),
    protected_branches: rule.protectedBranchIds.flatMap((id) => relations.protectedBranches.get(id) ?? []).map(protectedBranchEntity),
    applies_to_all_protected_branches: flag((rule.row as ProjectApprovalRuleRow).applies_to_all_protected_branches),
  };
}

/**
 * MergeRequestApprovalRule: a merge request's own rule, with the project rule it was copied from
 * (`source_rule`) and whether it differs from it (`overridden`). A project rule in force for a
 * merge request (in approval_state) has neither.
 */
export function mergeRequestApprovalRuleView(rule: LoadedRule, relations: RuleRelations, ctx: EntityContext) {
  const sourceId = rule.owner === 'merge_request' ? (rule.row as MergeRequestApprovalRuleRow).approval_project_rule_id : null;
  const source = sourceId === null ? undefined : relations.sourceRules.get(sourceId);
  return {
    ...approvalRuleView(rule, relations, ctx),
    section: null,
    source_rule: source ? { approvals_required: source.approvals_required } : null,
    overridden: !!source && (source.approvals_required !== rule.row.approvals_required || source.name !== rule.row.name),
  };
}

/** MergeRequestApprovalStateRule: a rule in force with who approved under it and whether it is satisfied. */
function approvalStateRuleView(progress: RuleProgress, relations: RuleRelations, ctx: EntityContext) {
  return {
    ...mergeRequestApprovalRuleView(progress.rule, relations, ctx),
    code_owner: false,
    approved_by: usersOf(progress.approvedIds, relations, ctx),
    approved: progress.approved,
  };
}

/** GET .../approval_state (MergeRequestApprovalState). */
export function approvalStateView(state: MergeRequestRuleState, relations: RuleRelations, ctx: EntityContext) {
  return { approval_rules_overwritten: state.overwritten, rules: state.rules.map((progress) => approvalStateRuleView(progress, relations, ctx)) };
}
