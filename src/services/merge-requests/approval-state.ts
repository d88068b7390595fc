import type { Db } from '../../db/connection.js';
import {
  allRuleRows,
  groupMembersOf,
  ruleGroupIds,
  ruleProtectedBranchIds,
  ruleUserIds,
  type ApprovalRuleRow,
  type MergeRequestApprovalRuleRow,
  type RuleOwner,
} from '../../db/tables/approval-rules.js';
import { approvalsOf, projectApprovalSettings, type MergeRequestApprovalRow } from '../../db/tables/merge-request-approvals.js';
import type { MergeRequestRow } from '../../db/tables/merge-requests.js';
import { allProtectedBranchRows } from '../../db/tables/protected-refs.js';
import { matchesRefPattern } from '../repository/ref-policy.js';

/**
 * Which approval rules a merge request must satisfy, and how far each is (ee; issue 25; GitLab's
 * ApprovalState). A merge request's own rules replace its project's, unless the project forbids
 * overriding; a project rule limited to protected branches applies only when the target branch
 * is one of them. The older per-project and per-merge-request `approvals_before_merge` acts as an
 * implicit "any approver" rule while no explicit one applies (GitLab migrated it into such a
 * rule), so a project without rules behaves as before.
 */

/** A rule with its members, as the views and the state read it. */
export interface LoadedRule {
  readonly owner: RuleOwner;
  readonly row: ApprovalRuleRow;
  readonly userIds: readonly number[];
  readonly groupIds: readonly number[];
  /** Project rules only: the protected branches the rule is limited to. */
  readonly protectedBranchIds: readonly number[];
  /** Users named directly and the groups' direct members, each once. */
  readonly eligibleIds: readonly number[];
}

/** One rule of a merge request's approval state (GitLab's ApprovalWrappedRule). */
export interface RuleProgress {
  readonly rule: LoadedRule;
  /** Who approved in this rule's name: anyone for an any_approver rule, else its eligible approvers. */
  readonly approvedIds: readonly number[];
  readonly approved: boolean;
  readonly left: number;
}

export interface MergeRequestRuleState {
  /** The merge request's own rules are in force (GitLab's approval_rules_overwritten). */
  readonly overwritten: boolean;
  readonly rules: readonly RuleProgress[];
  readonly approvals: readonly MergeRequestApprovalRow[];
  /** The implicit any-approver requirement from approvals_before_merge (0 when an explicit any_approver rule applies). */
  readonly implicitRequired: number;
  readonly required: number;
  readonly left: number;
  readonly approved: boolean;
}

/** Loads rules with their members: three queries for any number of rules, plus one for the groups' members. */
export function loadRules(db: Db, owner: RuleOwner, rows: readonly ApprovalRuleRow[]): LoadedRule[] {
  const ids = rows.map((row) => row.id);
  const users = ruleUserIds(db, owner, ids);
  const groups = ruleGroupIds(db, owner, ids);
  const branches = owner === 'project' ? ruleProtectedBranchIds(db, ids) : new Map<number, number[]>();
  const groupMembers = groupMembersOf(db, [...new Set([...groups.values()].flat())]);
  return rows.map((row) => {
    const userIds = users.get(row.id) ?? [];
    const groupIds = groups.get(row.id) ?? [];
    const eligibleIds = [...new Set([...userIds, ...groupIds.flatMap((id) => groupMembers.get(id) ?? [])])];
    return { owner, row, userIds, groupIds, protectedBranchIds: branches.get(row.id) ?? [], eligibleIds };
  });
}

/** The project rules that apply to a target branch: unrestricted ones, and those whose protected branches (or any, with applies_to_all_protected_branches) cover it. */
function applicableProjectRules(db: Db, projectId: number, targetBranch: string): LoadedRule[] {
  const rows = allRuleRows(db, 'project', projectId);
  if (!rows.length) return [];
  const protectedBranches = allProtectedBranchRows(db, projectId);
  const covers = (ids: readonly number[] | null) => protectedBranches.some((branch) => (ids === null || ids.includes(branch.id)) && matchesRefPattern(branch.name, targetBranch));
  return loadRules(db, 'project', rows).filter((rule) => {
    if ((rule.row as { applies_to_all_protected_branches?: number }).applies_to_all_protected_branches) return covers(null);
    return !rule.protectedBranchIds.length || covers(rule.protectedBranchIds);
  });
}

/** The rules in force for a merge request and whether its own rules replace its project's. */
export function effectiveRules(db: Db, mergeRequest: MergeRequestRow): { overwritten: boolean; rules: LoadedRule[] } {
  const own: MergeRequestApprovalRuleRow[] = allRuleRows(db, 'merge_request', mergeRequest.id);
  const settings = projectApprovalSettings(db, mergeRequest.target_project_id);
  if (own.length && !settings.disable_overriding_approvers_per_merge_request) return { overwritten: true, rules: loadRules(db, 'merge_request', own) };
  return { overwritten: false, rules: applicableProjectRules(db, mergeRequest.target_project_id, mergeRequest.target_branch) };
}

/** The merge request's approval state: each rule's progress, the totals the approvals view shows, and whether it may merge. */
export function mergeRequestRuleState(db: Db, mergeRequest: MergeRequestRow): MergeRequestRuleState {
  const { overwritten, rules } = effectiveRules(db, mergeRequest);
  const approvals = approvalsOf(db, mergeRequest.id);
  const approverIds = approvals.map((approval) => approval.user_id);
  const progress = rules.map((rule): RuleProgress => {
    const approvedIds = rule.row.rule_type === 'any_approver' ? approverIds : approverIds.filter((id) => rule.eligibleIds.includes(id));
    const left = Math.max(rule.row.approvals_required - approvedIds.length, 0);
    return { rule, approvedIds, approved: left === 0, left };
  });
  const legacy = mergeRequest.approvals_before_merge ?? projectApprovalSettings(db, mergeRequest.target_project_id).approvals_before_merge;
  const implicitRequired = rules.some((rule) => rule.row.rule_type === 'any_approver') ? 0 : legacy;
  const implicitLeft = Math.max(implicitRequired - approvals.length, 0);
  const left = progress.reduce((sum, rule) => sum + rule.left, implicitLeft);
  return {
    overwritten,
    rules: progress,
    approvals,
    implicitRequired,
    required: progress.reduce((sum, { rule }) => sum + rule.row.approvals_required, implicitRequired),
    left,
    approved: left === 0,
  };
}

/**
 * Whether `userId`'s approval may count now (GitLab's eligible_for_approval_by?, after the checks
 * every approver passes): an eligible approver of a rule in force, or anyone while no regular rule
 * names approvers or once the merge request is approved.
 */
export function approvalAllowedBy(state: MergeRequestRuleState, userId: number): boolean {
  const regular = state.rules.filter((progress) => progress.rule.row.rule_type === 'regular');
  return !regular.length || state.approved || regular.some((progress) => progress.rule.eligibleIds.includes(userId));
}
