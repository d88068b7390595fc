import { loadProject, requireAbility, signedIn } from '../middleware/guards.js';
import type { Route } from '../routes.js';
import { readableMergeRequest } from './guards.js';
import { addMergeRequest, showMergeRequest } from './merge-requests.js';
import { mergeRequestCreateParams, mergeRequestIid } from './params.js';

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
];
