import { inTransaction, type Db } from '../../db/connection.js';
import {
  deleteRuleRow,
  findClashingRule,
  findRuleRow,
  insertRuleRow,
  listRuleRows,
  replaceRuleGroups,
  replaceRuleProtectedBranches,
  replaceRuleUsers,
  ruleGroupIds,
  ruleUserIds,
  updateRuleRow,
  type ApprovalRuleRow,
  type MergeRequestApprovalRuleRow,
  type RuleType,
} from '../../db/tables/approval-rules.js';
import { projectApprovalSettings } from '../../db/tables/merge-request-approvals.js';
import type { MergeRequestRow } from '../../db/tables/merge-requests.js';
import type { Page, Paged } from '../../db/page.js';
import { namespacesByIds, usersByIds } from '../../db/tables/project-relations.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { allProtectedBranchRows, type ProtectedBranchRow } from '../../db/tables/protected-refs.js';
import type { NamespaceRow } from '../../db/tables/namespaces.js';
import { usersByUsernames, type UserRow } from '../../db/tables/users.js';
import { forbidden, invalid, notFound } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';
import { can, isProjectTeamMember } from '../permissions.js';
import type { Actor } from '../users/authentication.js';
import { loadRules, type LoadedRule } from './approval-state.js';

/**
 * Approval rules of a project and of one merge request (ee; issue 25; GitLab's
 * ApprovalRules::CreateService, UpdateService and ParamsFilteringService). Users not in the
 * project's team and groups the caller cannot see are dropped silently, as GitLab filters them; a
 * rule naming no one is an "any approver" rule unless a type is given.
 */

/** What a create or update may set; absent fields keep their value (on create, their default). */
export interface RuleInput {
  readonly name?: string;
  readonly approvalsRequired?: number;
  readonly ruleType?: RuleType;
  readonly userIds?: readonly number[];
  readonly usernames?: readonly string[];
  readonly groupIds?: readonly number[];
  /** Project rules only. */
  readonly protectedBranchIds?: readonly number[];
  readonly appliesToAllProtectedBranches?: boolean;
  /** Merge request rules only: the project rule whose name, users and groups a new rule copies. */
  readonly approvalProjectRuleId?: number;
}

/** Whose rules a call addresses: the project's, or one merge request's (in its target project). */
export type RuleScope = { readonly owner: 'project'; readonly project: ProjectRow } | { readonly owner: 'merge_request'; readonly project: ProjectRow; readonly mergeRequest: MergeRequestRow };

const ownerId = (scope: RuleScope) => (scope.owner === 'project' ? scope.project.id : scope.mergeRequest.id);

export function listApprovalRules(db: Db, scope: RuleScope, page: Page): Paged<LoadedRule> {
  const result = listRuleRows(db, scope.owner, ownerId(scope), page);
  return { rows: loadRules(db, scope.owner, result.rows), total: result.total };
}

/** One rule of the scope; GitLab's bare `404 Not found` otherwise. */
export function getApprovalRule(db: Db, scope: RuleScope, id: number): LoadedRule {
  const row = findRuleRow(db, scope.owner, ownerId(scope), id);
  if (!row) throw notFound();
  return loadRules(db, scope.owner, [row])[0];
}

/**
 * A merge request's rules may change while it is not merged and its project lets merge requests
 * override approvers (GitLab's update_approvers); 403 otherwise. The route checked update_merge_request.
 */
function assertMayEditMergeRequestRules(db: Db, scope: RuleScope): void {
  if (scope.owner !== 'merge_request') return;
  if (scope.mergeRequest.state === 'merged' || projectApprovalSettings(db, scope.project.id).disable_overriding_approvers_per_merge_request) throw forbidden();
}

/** The users a rule may name: given ids and usernames, kept when they belong to the project's team. */
function filterUsers(db: Db, project: ProjectRow, ids: readonly number[], usernames: readonly string[]): number[] {
  const users = [...usersByIds(db, ids).values(), ...usersByUsernames(db, usernames)];
  return [...new Set(users.filter((user) => isProjectTeamMember(db, user, project)).map((user) => user.id))];
}

/** The groups a rule may name: existing groups the caller can see. */
function filterGroups(db: Db, actor: Actor, ids: readonly number[]): number[] {
  return [...namespacesByIds(db, ids).values()].filter((group) => group.kind === 'group' && can(db, actor, 'read_group', group)).map((group) => group.id);
}

function assertValid(db: Db, scope: RuleScope, values: { name: string; approvalsRequired: number; ruleType: RuleType }, exceptId: number | null): void {
  if (!values.name.trim()) throw invalid({ name: ["can't be blank"] });
  if (values.approvalsRequired < 0) throw invalid({ approvals_required: ['must be greater than or equal to 0'] });
  if (values.approvalsRequired > 100) throw invalid({ approvals_required: ['must be less than or equal to 100'] });
  if (findClashingRule(db, scope.owner, ownerId(scope), 'name', values.name, exceptId)) throw invalid({ name: ['has already been taken'] });
  if (values.ruleType === 'any_approver' && findClashingRule(db, scope.owner, ownerId(scope), 'rule_type', 'any_approver', exceptId)) {
    throw invalid({ rule_type: [`any-approver for the ${scope.owner === 'project' ? 'project' : 'merge request'} already exists`] });
  }
}

/** Writes the members a create or update names; a list not given is left as it is. */
function writeMembers(db: Db, actor: Actor, scope: RuleScope, ruleId: number, input: RuleInput): void {
  if (input.userIds !== undefined || input.usernames !== undefined) replaceRuleUsers(db, scope.owner, ruleId, filterUsers(db, scope.project, input.userIds ?? [], input.usernames ?? []));
  if (input.groupIds !== undefined) replaceRuleGroups(db, scope.owner, ruleId, filterGroups(db, actor, input.groupIds));
  if (scope.owner === 'project' && input.protectedBranchIds !== undefined) {
    const own = new Set(allProtectedBranchRows(db, scope.project.id).map((branch) => branch.id));
    replaceRuleProtectedBranches(db, ruleId, input.protectedBranchIds.filter((id) => own.has(id)));
  }
}

/**
 * Creates a rule (201): name and approvals_required are required (the route's 400), names are
 * unique per owner, at most one any_approver rule per owner (400 with the field errors). A
 * merge request rule given `approval_project_rule_id` starts from that project rule's name,
 * users and groups.
 */
export function createApprovalRule(db: Db, actor: Actor, scope: RuleScope, input: RuleInput & { name: string; approvalsRequired: number }): LoadedRule {
  assertMayEditMergeRequestRules(db, scope);
  return inTransaction(db, () => {
    const source = scope.owner === 'merge_request' && input.approvalProjectRuleId !== undefined ? findRuleRow(db, 'project', scope.project.id, input.approvalProjectRuleId) : undefined;
    const copied: RuleInput = source ? copiedMembers(db, source) : {};
    const merged: RuleInput = { ...copied, ...definedOnly(input), name: source ? source.name : input.name };
    const named = merged.userIds?.length || merged.usernames?.length || merged.groupIds?.length;
    const ruleType: RuleType = input.ruleType ?? (named ? 'regular' : 'any_approver');
    const values = { name: merged.name!, approvalsRequired: input.approvalsRequired, ruleType };
    assertValid(db, scope, values, null);
    const now = nowIso();
    const row: Record<string, string | number | null> = { name: values.name, approvals_required: values.approvalsRequired, rule_type: ruleType, created_at: now, updated_at: now };
    if (scope.owner === 'project') Object.assign(row, { project_id: scope.project.id, applies_to_all_protected_branches: input.appliesToAllProtectedBranches ? 1 : 0 });
    else Object.assign(row, { merge_request_id: scope.mergeRequest.id, approval_project_rule_id: source?.id ?? null });
    const id = insertRuleRow(db, scope.owner, row);
    writeMembers(db, actor, scope, id, merged);
    return getApprovalRule(db, scope, id);
  });
}

/** The users and groups a merge request rule copies from its project rule. */
function copiedMembers(db: Db, source: ApprovalRuleRow): RuleInput {
  return { userIds: ruleUserIds(db, 'project', [source.id]).get(source.id) ?? [], groupIds: ruleGroupIds(db, 'project', [source.id]).get(source.id) ?? [] };
}

const definedOnly = <T extends object>(values: T): Partial<T> => Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;

/** Changes the given attributes of a rule (200); lists given replace the rule's members. */
export function updateApprovalRule(db: Db, actor: Actor, scope: RuleScope, id: number, input: RuleInput): LoadedRule {
  assertMayEditMergeRequestRules(db, scope);
  return inTransaction(db, () => {
    const current = getApprovalRule(db, scope, id).row;
    const values = { name: input.name ?? current.name, approvalsRequired: input.approvalsRequired ?? current.approvals_required, ruleType: current.rule_type };
    assertValid(db, scope, values, id);
    const columns: Record<string, string | number | null> = { name: values.name, approvals_required: values.approvalsRequired, updated_at: nowIso() };
    if (scope.owner === 'project' && input.appliesToAllProtectedBranches !== undefined) columns.applies_to_all_protected_branches = input.appliesToAllProtectedBranches ? 1 : 0;
    updateRuleRow(db, scope.owner, id, columns);
    writeMembers(db, actor, scope, id, input);
    return getApprovalRule(db, scope, id);
  });
}

/** Deletes a rule (204) with its member rows. */
export function deleteApprovalRule(db: Db, scope: RuleScope, id: number): void {
  assertMayEditMergeRequestRules(db, scope);
  inTransaction(db, () => {
    getApprovalRule(db, scope, id);
    deleteRuleRow(db, scope.owner, id);
  });
}

/** What the rule views show besides the rules: their users, groups, protected branches and source rules, one query each. */
export interface RuleRelations {
  readonly users: ReadonlyMap<number, UserRow>;
  readonly groups: ReadonlyMap<number, NamespaceRow>;
  readonly protectedBranches: ReadonlyMap<number, ProtectedBranchRow>;
  readonly sourceRules: ReadonlyMap<number, ApprovalRuleRow>;
}

/** Preloads what the views of these rules (of one project) show; `approvedIds` adds the users who approved. */
export function loadRuleRelations(db: Db, project: ProjectRow, rules: readonly LoadedRule[], approvedIds: readonly number[] = []): RuleRelations {
  const sourceIds = rules.flatMap((rule) => (rule.owner === 'merge_request' ? [(rule.row as MergeRequestApprovalRuleRow).approval_project_rule_id ?? []].flat() : []));
  return {
    users: usersByIds(db, [...rules.flatMap((rule) => [...rule.userIds, ...rule.eligibleIds]), ...approvedIds]),
    groups: namespacesByIds(db, rules.flatMap((rule) => rule.groupIds)),
    protectedBranches: new Map(rules.some((rule) => rule.protectedBranchIds.length) ? allProtectedBranchRows(db, project.id).map((row) => [row.id, row]) : []),
    sourceRules: new Map(sourceIds.flatMap((id) => findRuleRow(db, 'project', project.id, id) ?? []).map((row) => [row.id, row])),
  };
}
