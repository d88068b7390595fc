import { loadProject, requireAbility, signedIn } from '../middleware/guards.js';
import type { Route } from '../routes.js';
import { readableMergeRequest } from './guards.js';
import { addMergeRequest, showMergeRequest } from './merge-requests.js';
import { mergeRequestCreateParams, mergeRequestIid } from './params.js';
import { eeRoute } from '../planning/board-guards.js';
import { approve, changeApprovalsRequired, changeProjectApprovals, showApprovals, showProjectApprovals, unapprove } from './approvals.js';
import { acceptMerge, acceptParams, cancelMergeWhenPipeline, rebaseMerge, showMergeRef } from './merges.js';

const one = '/projects/:id/merge_requests/:merge_request_iid';
/** The routes of one merge request: signed in (401), its iid (400), a visible project (404), read_merge_request (403), then the merge request (404). */
const oneMergeRequest = [signedIn, mergeRequestIid, loadProject(), requireAbility('read_merge_request'), readableMergeRequest];

/**
 * Merge requests (issue 15). Every route needs a signed-in caller (SPEC: "Every call requires
 * authentication"), then GitLab's order: 400 for a bad parameter, 404 for a missing or invisible
 * project or merge request, 403 for an ability the caller lacks.
 */
export const mergeRequestsRoutes: readonly Route[] = [
  { method: 'post', path: '/projects/:id/merge_requests', guards: [signedIn, mergeRequestCreateParams, loadProject(), requireAbility('create_merge_request_from')], handler: addMergeRequest },
  { method: 'get', path: '/projects/:id/merge_requests/:merge_request_iid', guards: oneMergeRequest, handler: showMergeRequest },

  // Merging (items 5-6): the service checks the rest in the SPEC's order (401, 406, 405, 409).
  { method: 'put', path: `${one}/merge`, guards: [signedIn, mergeRequestIid, acceptParams, ...oneMergeRequest.slice(2)], handler: acceptMerge },
  { method: 'put', path: `${one}/cancel_merge_when_pipeline_succeeds`, guards: oneMergeRequest, handler: cancelMergeWhenPipeline },
  { method: 'post', path: `${one}/cancel_merge_when_pipeline_succeeds`, guards: oneMergeRequest, handler: cancelMergeWhenPipeline },
  { method: 'put', path: `${one}/rebase`, guards: oneMergeRequest, handler: rebaseMerge },
  { method: 'post', path: `${one}/rebase`, guards: oneMergeRequest, handler: rebaseMerge },
  { method: 'get', path: `${one}/merge_ref`, guards: oneMergeRequest, handler: showMergeRef },

  // Approvals (item 7, ee: 404 as an unknown route in ce).
  { method: 'get', path: `${one}/approvals`, guards: [eeRoute, ...oneMergeRequest], handler: showApprovals },
  { method: 'post', path: `${one}/approvals`, guards: [eeRoute, ...oneMergeRequest, requireAbility('update_merge_request')], handler: changeApprovalsRequired },
  { method: 'post', path: `${one}/approve`, guards: [eeRoute, ...oneMergeRequest], handler: approve },
  { method: 'post', path: `${one}/unapprove`, guards: [eeRoute, ...oneMergeRequest], handler: unapprove },
  { method: 'get', path: '/projects/:id/approvals', guards: [eeRoute, signedIn, loadProject(), requireAbility('read_merge_request')], handler: showProjectApprovals },
  { method: 'post', path: '/projects/:id/approvals', guards: [eeRoute, signedIn, loadProject(), requireAbility('admin_project')], handler: changeProjectApprovals },
];
