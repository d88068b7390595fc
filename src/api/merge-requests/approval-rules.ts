import type { Request, Response } from 'express';
import { approvalStateView, mergeRequestApprovalRuleView, projectApprovalRuleView } from '../../entities/approval-rules.js';
import {
  createApprovalRule,
  deleteApprovalRule,
  getApprovalRule,
  listApprovalRules,
  loadRuleRelations,
  updateApprovalRule,
  type RuleInput,
  type RuleScope,
} from '../../services/merge-requests/approval-rules.js';
import { mergeRequestRuleState } from '../../services/merge-requests/approval-state.js';
import type { LoadedRule } from '../../services/merge-requests/approval-state.js';
import { resetApprovals } from '../../services/merge-requests/approvals.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { paramsGuard, pathId } from '../middleware/value-guards.js';
import { paged, sendPage } from '../pagination.js';
import { bool, int, list, oneOf, required, str, type Parsed } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';
import { readableMergeRequest } from './guards.js';

/**
 * Approval rules of a project and of a merge request, the merge request's approval state, and
 * reset_approvals (ee; issue 25; GitLab's project_approval_rules.rb, merge_request_approval_rules.rb).
 */

export const approvalRuleId = pathId('approval_rule_id');

/** The attributes a rule takes; `users` and `groups` are GitLab's deprecated names of `user_ids` and `group_ids`. */
const RULE_PARAMS = {
  name: str(),
  approvals_required: int(),
  users: list(int()),
  user_ids: list(int()),
  groups: list(int()),
  group_ids: list(int()),
  usernames: list(str()),
  protected_branch_ids: list(int()),
  applies_to_all_protected_branches: bool(),
};

function ruleInputOf(params: Parsed<typeof RULE_PARAMS>): RuleInput {
  return {
    name: params.name,
    approvalsRequired: params.approvals_required,
    userIds: params.user_ids ?? params.users,
    groupIds: params.group_ids ?? params.groups,
    usernames: params.usernames,
    protectedBranchIds: params.protected_branch_ids,
    appliesToAllProtectedBranches: params.applies_to_all_protected_branches,
  };
}

/** POST: `name` and `approvals_required` required (400 `<name> is missing`); `rule_type` regular or any_approver. */
export const approvalRuleCreateParams = paramsGuard(
  'approvalRuleCreateParams',
  { ...RULE_PARAMS, name: required(str()), approvals_required: required(int()), rule_type: oneOf(['regular', 'any_approver'] as const), approval_project_rule_id: int({ min: 1 }) },
  (params) => ({ ...ruleInputOf(params), name: params.name, approvalsRequired: params.approvals_required, ruleType: params.rule_type, approvalProjectRuleId: params.approval_project_rule_id }),
);

export const approvalRuleUpdateParams = paramsGuard('approvalRuleUpdateParams', { ...RULE_PARAMS, remove_hidden_groups: bool() }, ruleInputOf);

const projectScope = (req: Request): RuleScope => ({ owner: 'project', project: projectOf(req) });
const mergeRequestScope = (req: Request): RuleScope => ({ owner: 'merge_request', project: projectOf(req), mergeRequest: readableMergeRequest.of(req) });

/** The view of a scope's rules: with protected branches for a project's, with source rules for a merge request's. */
function viewsOf(ctx: SiteContext, scope: RuleScope, rules: readonly LoadedRule[]) {
  const relations = loadRuleRelations(ctx.db, scope.project, rules);
  const view = scope.owner === 'project' ? projectApprovalRuleView : mergeRequestApprovalRuleView;
  return rules.map((rule) => view(rule, relations, ctx));
}

const listRules = (scopeOf: (req: Request) => RuleScope) => (ctx: SiteContext, req: Request, res: Response) => {
  const scope = scopeOf(req);
  const page = paged.of(req);
  const result = listApprovalRules(ctx.db, scope, page);
  sendPage(req, res, ctx.externalUrl, page, viewsOf(ctx, scope, result.rows), result.total);
};

const showRule = (scopeOf: (req: Request) => RuleScope) => (ctx: SiteContext, req: Request, res: Response) => {
  const scope = scopeOf(req);
  sendJson(res, 200, viewsOf(ctx, scope, [getApprovalRule(ctx.db, scope, approvalRuleId.of(req))])[0]);
};

const addRule = (scopeOf: (req: Request) => RuleScope) => (ctx: SiteContext, req: Request, res: Response) => {
  const scope = scopeOf(req);
  const rule = createApprovalRule(ctx.db, requireActor(req), scope, approvalRuleCreateParams.of(req));
  sendJson(res, 201, viewsOf(ctx, scope, [rule])[0]);
};

const editRule = (scopeOf: (req: Request) => RuleScope) => (ctx: SiteContext, req: Request, res: Response) => {
  const scope = scopeOf(req);
  const rule = updateApprovalRule(ctx.db, requireActor(req), scope, approvalRuleId.of(req), approvalRuleUpdateParams.of(req));
  sendJson(res, 200, viewsOf(ctx, scope, [rule])[0]);
};

const removeRule = (scopeOf: (req: Request) => RuleScope) => (ctx: SiteContext, req: Request, res: Response) => {
  deleteApprovalRule(ctx.db, scopeOf(req), approvalRuleId.of(req));
  sendNoContent(res);
};

export const listProjectRules = listRules(projectScope);
export const showProjectRule = showRule(projectScope);
export const addProjectRule = addRule(projectScope);
export const editProjectRule = editRule(projectScope);
export const removeProjectRule = removeRule(projectScope);
export const listMergeRequestRules = listRules(mergeRequestScope);
export const showMergeRequestRule = showRule(mergeRequestScope);
export const addMergeRequestRule = addRule(mergeRequestScope);
export const editMergeRequestRule = editRule(mergeRequestScope);
export const removeMergeRequestRule = removeRule(mergeRequestScope);

/** GET .../approval_state: the rules in force, who approved under each, and whether each is satisfied. */
export function showApprovalState(ctx: SiteContext, req: Request, res: Response): void {
  const state = mergeRequestRuleState(ctx.db, readableMergeRequest.of(req));
  const rules = state.rules.map((progress) => progress.rule);
  const relations = loadRuleRelations(ctx.db, projectOf(req), rules, state.rules.flatMap((progress) => progress.approvedIds));
  sendJson(res, 200, approvalStateView(state, relations, ctx));
}

/** PUT .../reset_approvals: 202 (GitLab's `status :accepted`, whose value Grape renders as the body). */
export function resetMergeRequestApprovals(ctx: SiteContext, req: Request, res: Response): void {
  resetApprovals(ctx, requireActor(req), projectOf(req), readableMergeRequest.of(req));
  sendJson(res, 202, 202);
}
