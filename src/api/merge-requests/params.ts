import type { MergeRequestInput } from '../../services/merge-requests/attributes.js';
import type { MergeRequestFilters } from '../../services/merge-requests/lists.js';
import type { MergeRequestCreate, MergeRequestUpdate } from '../../services/merge-requests/merge-requests.js';
import { CREATED_UPDATED_PARAMS, issuableFiltersOf, orPresence, SCOPES } from '../issuables/list-params.js';
import { paramsGuard, pathId } from '../middleware/value-guards.js';
import { PAGE_PARAMS, pageOf } from '../pagination.js';
import { badRequest } from '../../errors.js';
import { bool, clearable, datetime, int, list, oneOf, required, requireAtLeastOne, str, type Parsed, type Reader } from '../params.js';

/** The `:merge_request_iid` of a route (400 `merge_request_iid is invalid`), read before the project is found, as Grape does. */
export const mergeRequestIid = pathId('merge_request_iid');

/** An id where an empty value means 0 (SPEC: `assignee_id` and `milestone_id` "0 or empty unassigns"). */
const idOrEmpty: Reader<number | undefined> = (raw, name) => (raw === '' ? 0 : int({ min: 0 })(raw, name));

/** The attributes a create and an edit share (GitLab's merge request params), typed. */
const MERGE_REQUEST_PARAMS = {
  title: str(),
  description: str(),
  target_branch: str(),
  assignee_id: idOrEmpty,
  milestone_id: idOrEmpty,
  labels: list(str()),
  assignee_ids: list(int({ min: 0 })),
  reviewer_ids: list(int({ min: 0 })),
  merge_after: clearable(datetime()),
  remove_source_branch: bool(),
  squash: bool(),
  discussion_locked: bool(),
  allow_maintainer_to_push: bool(),
  allow_collaboration: bool(),
};

const labelTitles = (titles: readonly string[] | undefined) => titles?.map((title) => title.trim()).filter(Boolean);

function mergeRequestInputOf(params: Parsed<typeof MERGE_REQUEST_PARAMS> & { add_labels?: string[]; remove_labels?: string[] }): MergeRequestInput {
  const { allow_collaboration, labels, add_labels, remove_labels, ...rest } = params;
  const entries = Object.entries({
    ...rest,
    labels: labelTitles(labels),
    add_labels: labelTitles(add_labels),
    remove_labels: labelTitles(remove_labels),
    allow_maintainer_to_push: rest.allow_maintainer_to_push ?? allow_collaboration,
  }).filter(([, value]) => value !== undefined);
  return Object.fromEntries(entries) as MergeRequestInput;
}

/** POST /projects/:id/merge_requests: `source_branch`, `target_branch` and `title` are required (400 `<name> is missing`). */
const { title: _title, target_branch: _targetBranch, ...OPTIONAL_PARAMS } = MERGE_REQUEST_PARAMS;

export const mergeRequestCreateParams = paramsGuard(
  'mergeRequestCreateParams',
  { source_branch: required(str()), target_branch: required(str()), title: required(str()), target_project_id: int(), approvals_before_merge: int({ min: 0 }), ...OPTIONAL_PARAMS },
  ({ source_branch, target_project_id, approvals_before_merge, ...input }): MergeRequestCreate => ({
    ...mergeRequestInputOf(input),
    source_branch,
    target_branch: input.target_branch,
    title: input.title,
    ...(target_project_id !== undefined ? { target_project_id } : {}),
    ...(approvals_before_merge !== undefined ? { approvals_before_merge } : {}),
  }),
);

/** What an edit may change; at least one of them (decision 14: 400 naming them). */
const UPDATE_ATTRIBUTES = [
  'target_branch', 'title', 'assignee_id', 'assignee_ids', 'reviewer_ids', 'milestone_id', 'labels', 'add_labels', 'remove_labels', 'description', 'state_event',
  'remove_source_branch', 'squash', 'discussion_locked', 'allow_maintainer_to_push', 'merge_after',
];

/** PUT /projects/:id/merge_requests/:merge_request_iid; `add_labels` and `remove_labels` as the issues have them. */
export const mergeRequestUpdateParams = paramsGuard('mergeRequestUpdateParams', { state_event: oneOf(['close', 'reopen'] as const), add_labels: list(str()), remove_labels: list(str()), ...MERGE_REQUEST_PARAMS }, ({ state_event, ...params }): MergeRequestUpdate => {
  const update: MergeRequestUpdate = { ...mergeRequestInputOf(params), ...(state_event ? { state_event } : {}) };
  requireAtLeastOne({ ...update }, UPDATE_ATTRIBUTES);
  return update;
});

/** The filters and page of a merge request list (SPEC "Merge requests" list parameters), read before the project or group is found. */
const MERGE_REQUEST_LIST_PARAMS = {
  state: oneOf(['opened', 'closed', 'merged', 'locked', 'all'] as const),
  order_by: oneOf(['created_at', 'updated_at'] as const),
  sort: oneOf(['asc', 'desc'] as const),
  milestone: orPresence(str()),
  view: oneOf(['simple'] as const),
  labels: orPresence(list(str())),
  ...CREATED_UPDATED_PARAMS,
  scope: oneOf(SCOPES),
  author_id: int(),
  assignee_id: orPresence(int()),
  reviewer_id: orPresence(int()),
  reviewer_username: str(),
  with_labels_details: bool(),
  my_reaction_emoji: orPresence(str()),
  search: str(),
  source_branch: str(),
  target_branch: str(),
  wip: oneOf(['yes', 'no'] as const),
  iids: list(int()),
  ...PAGE_PARAMS,
};

function mergeRequestListOf(params: Parsed<typeof MERGE_REQUEST_LIST_PARAMS>, defaultScope: MergeRequestFilters['scope']) {
  // GitLab 17's finder params: one reviewer filter at a time.
  if (params.reviewer_id !== undefined && params.reviewer_username) throw badRequest('reviewer_id, reviewer_username are mutually exclusive');
  const labels = Array.isArray(params.labels) ? params.labels.map((title) => title.trim()).filter(Boolean) : params.labels;
  const filters: MergeRequestFilters = {
    ...issuableFiltersOf(params, labels, defaultScope),
    state: params.state === 'all' ? undefined : params.state,
    sourceBranch: params.source_branch || undefined,
    targetBranch: params.target_branch || undefined,
    wip: params.wip,
    reviewerId: params.reviewer_id,
    reviewerUsername: params.reviewer_username || undefined,
    orderBy: params.order_by,
  };
  return { filters, simple: params.view === 'simple', labelsDetails: params.with_labels_details === true, page: pageOf(params) };
}

/** A project's or group's merge request list: every scope by default. */
export const mergeRequestListParams = paramsGuard('mergeRequestListParams', MERGE_REQUEST_LIST_PARAMS, (params) => mergeRequestListOf(params, 'all'));

/** GET /merge_requests: the caller's own by default (SPEC: "The global list returns by default only merge requests created by the caller"). */
export const myMergeRequestListParams = paramsGuard('myMergeRequestListParams', MERGE_REQUEST_LIST_PARAMS, (params) => mergeRequestListOf(params, 'created_by_me'));

/** GET .../versions/:version_id (400 `version_id is invalid`). */
export const versionId = pathId('version_id');

/** GET /projects/:id/repository/commits/:sha/merge_requests: an optional `state` and the page. */
export const commitMergeRequestsParams = paramsGuard('commitMergeRequestsParams', { state: oneOf(['opened', 'closed', 'merged', 'locked'] as const), ...PAGE_PARAMS }, (params) => ({
  state: params.state,
  page: pageOf(params),
}));
