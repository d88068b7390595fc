import { issueIid, readableIssue } from '../issuables/issue-guards.js';
import { timeTrackingDurationParams } from '../issuables/issue-params.js';
import { noteableRoutes } from '../issuables/note-routes.js';
import { valueGuard } from '../middleware/value-guards.js';
import { mergeRequestNoteable } from '../../services/issuables/noteables.js';
import { eeRoute, loadGroup, loadProject, projectOf, requireAbility, signedIn } from '../middleware/guards.js';
import { paged } from '../pagination.js';
import type { Guard, Route } from '../routes.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import {
  listClosesIssues,
  listCommitMergeRequests,
  listCommits,
  listDiffs,
  listIssueClosers,
  listParticipants,
  listPipelines,
  listRelatedIssues,
  listReviewers,
  listVersions,
  estimateTime,
  markTodo,
  mergeRequestSubscriber,
  showChanges,
  showTimeStats,
  showVersion,
  spendTime,
} from './actions.js';
import { editableMergeRequest, namedMergeRequest, readableMergeRequest } from './guards.js';
import { addMergeRequest, editMergeRequest, listGroupMergeRequests, listMyMergeRequests, listProjectMergeRequests, removeMergeRequest, showMergeRequest } from './merge-requests.js';
import { approvalSettingsParams, approvalsRequiredParams, approve, mergeRequestApproveParams, changeApprovalsRequired, changeProjectApprovals, showApprovals, showProjectApprovals, unapprove } from './approvals.js';
import {
  addMergeRequestRule,
  addProjectRule,
  approvalRuleCreateParams,
  approvalRuleId,
  approvalRuleUpdateParams,
  editMergeRequestRule,
  editProjectRule,
  listMergeRequestRules,
  listProjectRules,
  removeMergeRequestRule,
  removeProjectRule,
  resetMergeRequestApprovals,
  showApprovalState,
  showMergeRequestRule,
  showProjectRule,
} from './approval-rules.js';
import { acceptMerge, mergeRequestMergeParams, cancelMergeWhenPipeline, rebaseMerge, showMergeRef } from './merges.js';
import { commitMergeRequestsParams, mergeRequestCreateParams, mergeRequestIid, mergeRequestListParams, mergeRequestUpdateParams, myMergeRequestListParams, versionId } from './params.js';

const base = '/projects/:id/merge_requests/:merge_request_iid';
const projectRule = '/projects/:id/approval_rules/:approval_rule_id';
/** The routes of one merge request: signed in (401), its iid (400), a visible project (404), read_merge_request (403), then the merge request (404). */
const oneMergeRequest = [signedIn, mergeRequestIid, loadProject(), requireAbility('read_merge_request'), readableMergeRequest];

/** A merge request's rule changes: its parameters read first (400), the merge request (404), then update_merge_request (403; the service refuses a merged one or a project that forbids overriding). */
const editingRules = (params: readonly Guard[]) => [eeRoute, signedIn, mergeRequestIid, ...params, ...oneMergeRequest.slice(2), requireAbility('update_merge_request')];

/** Time tracking changes: signed in (401), the duration read (400), then the merge request (404), then admin_merge_request (403). */
const timeTracking = (duration: boolean) => [
  signedIn,
  mergeRequestIid,
  ...(duration ? [timeTrackingDurationParams] : []),
  loadProject(),
  requireAbility('read_merge_request'),
  readableMergeRequest,
  requireAbility('admin_merge_request'),
];

/** A merge request the caller may read, as a noteable: `404 Merge Request Not Found` otherwise. */
const mergeRequestAsNoteable = valueGuard('mergeRequestNoteable', (_ctx, req) => mergeRequestNoteable(projectOf(req), namedMergeRequest.of(req)));

/**
 * Merge requests (issue 15, items 1-4 and 8). Every route needs a signed-in caller (SPEC: "Every
 * call requires authentication"), then GitLab's order: 400 for a bad parameter, 404 for a missing
 * or invisible project or merge request, 403 for an ability the caller lacks. The merge itself,
 * approvals, rebase and merge when pipeline succeeds are the merge code's rows.
 */
export const mergeRequestsRoutes: readonly Route[] = [
  { method: 'get', path: '/merge_requests', guards: [signedIn, myMergeRequestListParams], handler: listMyMergeRequests },
  { method: 'get', path: '/groups/:id/merge_requests', guards: [signedIn, mergeRequestListParams, loadGroup()], handler: listGroupMergeRequests },
  { method: 'get', path: '/projects/:id/merge_requests', guards: [signedIn, mergeRequestListParams, loadProject(), requireAbility('read_merge_request')], handler: listProjectMergeRequests },
  { method: 'post', path: '/projects/:id/merge_requests', guards: [signedIn, mergeRequestCreateParams, loadProject(), requireAbility('create_merge_request_from')], handler: addMergeRequest },
  { method: 'get', path: base, guards: oneMergeRequest, handler: showMergeRequest },
  { method: 'put', path: base, guards: [signedIn, mergeRequestIid, mergeRequestUpdateParams, loadProject(), requireAbility('read_merge_request'), editableMergeRequest], handler: editMergeRequest },
  { method: 'delete', path: base, guards: [signedIn, mergeRequestIid, loadProject(), requireAbility('read_merge_request'), readableMergeRequest, requireAbility('destroy_merge_request'), unmodifiedSince], handler: removeMergeRequest },
  { method: 'get', path: `${base}/participants`, guards: [...oneMergeRequest, paged], handler: listParticipants },
  { method: 'get', path: `${base}/commits`, guards: [...oneMergeRequest, paged], handler: listCommits },
  { method: 'get', path: `${base}/changes`, guards: oneMergeRequest, handler: showChanges },
  { method: 'get', path: `${base}/diffs`, guards: [...oneMergeRequest, paged], handler: listDiffs },
  { method: 'get', path: `${base}/versions`, guards: [...oneMergeRequest, paged], handler: listVersions },
  { method: 'get', path: `${base}/versions/:version_id`, guards: [signedIn, mergeRequestIid, versionId, loadProject(), requireAbility('read_merge_request'), readableMergeRequest], handler: showVersion },
  { method: 'get', path: `${base}/closes_issues`, guards: [...oneMergeRequest, paged], handler: listClosesIssues },
  { method: 'get', path: `${base}/pipelines`, guards: [...oneMergeRequest, paged], handler: listPipelines },
  // GitLab 17's additions (issue 25).
  { method: 'get', path: `${base}/reviewers`, guards: oneMergeRequest, handler: listReviewers },
  { method: 'get', path: `${base}/related_issues`, guards: [...oneMergeRequest, paged], handler: listRelatedIssues },
  { method: 'get', path: '/projects/:id/repository/commits/:sha/merge_requests', guards: [commitMergeRequestsParams, loadProject(), requireAbility('read_merge_request')], handler: listCommitMergeRequests },
  { method: 'post', path: `${base}/subscribe`, guards: oneMergeRequest, handler: mergeRequestSubscriber(true) },
  { method: 'post', path: `${base}/unsubscribe`, guards: oneMergeRequest, handler: mergeRequestSubscriber(false) },
  { method: 'post', path: `${base}/todo`, guards: [signedIn, mergeRequestIid, loadProject(), requireAbility('read_merge_request'), namedMergeRequest], handler: markTodo },
  { method: 'get', path: `${base}/time_stats`, guards: oneMergeRequest, handler: showTimeStats },
  { method: 'post', path: `${base}/time_estimate`, guards: timeTracking(true), handler: estimateTime(false) },
  { method: 'post', path: `${base}/reset_time_estimate`, guards: timeTracking(false), handler: estimateTime(true) },
  { method: 'post', path: `${base}/add_spent_time`, guards: timeTracking(true), handler: spendTime(false) },
  { method: 'post', path: `${base}/reset_spent_time`, guards: timeTracking(false), handler: spendTime(true) },
  ...noteableRoutes({
    base,
    load: [mergeRequestIid, loadProject(), requireAbility('read_merge_request'), namedMergeRequest, mergeRequestAsNoteable],
    noteable: mergeRequestAsNoteable,
    resourceEvents: true,
    resolvableDiscussions: true,
  }),
  // The issue side of closing references (item 4): the merge requests that close an issue when merged.
  { method: 'get', path: '/projects/:id/issues/:issue_iid/closed_by', guards: [issueIid, loadProject(), requireAbility('read_issue'), readableIssue, paged], handler: listIssueClosers },
  { method: 'get', path: '/projects/:id/issues/:issue_iid/related_merge_requests', guards: [issueIid, loadProject(), requireAbility('read_issue'), readableIssue, paged], handler: listIssueClosers },

  // Merging (items 5-6): the service checks the rest in the SPEC's order (401, 406, 405, 409).
  { method: 'put', path: `${base}/merge`, guards: [signedIn, mergeRequestIid, mergeRequestMergeParams, ...oneMergeRequest.slice(2)], handler: acceptMerge },
  { method: 'put', path: `${base}/cancel_merge_when_pipeline_succeeds`, guards: oneMergeRequest, handler: cancelMergeWhenPipeline },
  { method: 'post', path: `${base}/cancel_merge_when_pipeline_succeeds`, guards: oneMergeRequest, handler: cancelMergeWhenPipeline },
  { method: 'put', path: `${base}/rebase`, guards: oneMergeRequest, handler: rebaseMerge },
  { method: 'post', path: `${base}/rebase`, guards: oneMergeRequest, handler: rebaseMerge },
  { method: 'get', path: `${base}/merge_ref`, guards: oneMergeRequest, handler: showMergeRef },

  // Approvals (item 7, ee: 404 as an unknown route in ce).
  { method: 'get', path: `${base}/approvals`, guards: [eeRoute, ...oneMergeRequest], handler: showApprovals },
  { method: 'post', path: `${base}/approvals`, guards: [eeRoute, ...oneMergeRequest, requireAbility('update_merge_request'), approvalsRequiredParams], handler: changeApprovalsRequired },
  { method: 'post', path: `${base}/approve`, guards: [eeRoute, ...oneMergeRequest, mergeRequestApproveParams], handler: approve },
  { method: 'post', path: `${base}/unapprove`, guards: [eeRoute, ...oneMergeRequest], handler: unapprove },
  { method: 'get', path: '/projects/:id/approvals', guards: [eeRoute, signedIn, loadProject(), requireAbility('read_merge_request')], handler: showProjectApprovals },
  { method: 'post', path: '/projects/:id/approvals', guards: [eeRoute, signedIn, loadProject(), requireAbility('admin_project'), approvalSettingsParams], handler: changeProjectApprovals },

  // Approval rules (issue 25, ee): parameters are read before the project is found (Grape validates before the endpoint runs).
  { method: 'get', path: '/projects/:id/approval_rules', guards: [eeRoute, signedIn, loadProject(), requireAbility('read_approval_rules'), paged], handler: listProjectRules },
  { method: 'post', path: '/projects/:id/approval_rules', guards: [eeRoute, signedIn, approvalRuleCreateParams, loadProject(), requireAbility('admin_project')], handler: addProjectRule },
  { method: 'get', path: projectRule, guards: [eeRoute, signedIn, approvalRuleId, loadProject(), requireAbility('read_approval_rules')], handler: showProjectRule },
  { method: 'put', path: projectRule, guards: [eeRoute, signedIn, approvalRuleId, approvalRuleUpdateParams, loadProject(), requireAbility('admin_project')], handler: editProjectRule },
  { method: 'delete', path: projectRule, guards: [eeRoute, signedIn, approvalRuleId, loadProject(), requireAbility('admin_project')], handler: removeProjectRule },
  { method: 'get', path: `${base}/approval_rules`, guards: [eeRoute, ...oneMergeRequest, paged], handler: listMergeRequestRules },
  { method: 'post', path: `${base}/approval_rules`, guards: editingRules([approvalRuleCreateParams]), handler: addMergeRequestRule },
  { method: 'get', path: `${base}/approval_rules/:approval_rule_id`, guards: [eeRoute, signedIn, mergeRequestIid, approvalRuleId, ...oneMergeRequest.slice(2)], handler: showMergeRequestRule },
  { method: 'put', path: `${base}/approval_rules/:approval_rule_id`, guards: editingRules([approvalRuleId, approvalRuleUpdateParams]), handler: editMergeRequestRule },
  { method: 'delete', path: `${base}/approval_rules/:approval_rule_id`, guards: editingRules([approvalRuleId]), handler: removeMergeRequestRule },
  { method: 'get', path: `${base}/approval_state`, guards: [eeRoute, ...oneMergeRequest], handler: showApprovalState },
  { method: 'put', path: `${base}/reset_approvals`, guards: [eeRoute, ...oneMergeRequest], handler: resetMergeRequestApprovals },
];
