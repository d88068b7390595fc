import { AppError, badRequest } from '../../errors.js';
import type { IssueUpdate } from '../../services/issuables/issues.js';
import type { Presence } from '../../services/issuables/issuable-lists.js';
import { ISSUE_ORDERS, type IssueFilters } from '../../services/issuables/issue-lists.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { PAGE_PARAMS, pageOf } from '../pagination.js';
import { bool, clearable, date, given, datetime, int, list, oneOf, required, requireAtLeastOne, str, type Parsed, type Reader } from '../params.js';
import { CREATED_UPDATED_PARAMS, issuableFiltersOf, orPresence, SCOPES } from './list-params.js';

/** An integer or None/Any; anything else is `does not have a valid value`, as Grape's values check answers. */
const idOrPresence: Reader<number | Presence | undefined> = (raw, name) => {
  try {
    return orPresence(int())(raw, name);
  } catch {
    throw badRequest(`${name} does not have a valid value`);
  }
};

/** The filters and page of an issue list (GitLab's issues_params), read before the project or group is found. */
const ISSUE_LIST_PARAMS = {
  state: oneOf(['opened', 'closed', 'all'] as const),
  labels: orPresence(list(str())),
  milestone: orPresence(str()),
  iids: list(int()),
  scope: oneOf(SCOPES),
  author_id: int(),
  assignee_id: idOrPresence,
  my_reaction_emoji: orPresence(str()),
  search: str(),
  ...CREATED_UPDATED_PARAMS,
  confidential: bool(),
  order_by: oneOf(ISSUE_ORDERS),
  sort: oneOf(['asc', 'desc'] as const),
  with_labels_details: bool(),
  ...PAGE_PARAMS,
};

function issueListOf(params: Parsed<typeof ISSUE_LIST_PARAMS>, defaultScope: IssueFilters['scope']) {
  const labels = Array.isArray(params.labels) ? params.labels.filter(Boolean) : params.labels;
  const filters: IssueFilters = {
    ...issuableFiltersOf(params, labels, defaultScope),
    state: params.state === 'all' ? undefined : params.state,
    confidential: params.confidential,
    orderBy: params.order_by,
  };
  return { filters, labelsDetails: params.with_labels_details === true, page: pageOf(params) };
}

/** A project's or group's issue list: every scope by default. */
export const issueListParams = paramsGuard('issueListParams', ISSUE_LIST_PARAMS, (params) => issueListOf(params, 'all'));

/** GET /issues: the caller's own issues by default; anonymous callers may only ask for `scope=all` (401 otherwise, after the 400s). */
export const myIssueListParams = paramsGuard('myIssueListParams', ISSUE_LIST_PARAMS, (params, req) => {
  const read = issueListOf(params, 'created_by_me');
  if (!req.actor && read.filters.scope !== 'all') throw new AppError('unauthorized');
  return read;
});

/** The attributes of a create or an edit (GitLab's issue_params), typed; `due_date: ''` clears the date. */
const ISSUE_PARAMS = {
  title: str(),
  description: str(),
  assignee_ids: list(int()),
  assignee_id: int(),
  milestone_id: int(),
  labels: list(str()),
  add_labels: list(str()),
  remove_labels: list(str()),
  due_date: clearable(date()),
  confidential: bool(),
  discussion_locked: bool(),
  // Empty clears it, as Grape's nil does.
  weight: clearable(int()),
  created_at: datetime(),
  updated_at: datetime(),
};

function issueInputOf(params: Parsed<typeof ISSUE_PARAMS>): IssueUpdate {
  return given(params) as IssueUpdate;
}

/** POST /projects/:id/issues: `title` is required (400 `title is missing`). */
export const issueCreateParams = paramsGuard('issueCreateParams', { ...ISSUE_PARAMS, title: required(str()) }, (params) => ({ ...issueInputOf(params), title: params.title }));

/** What an edit may change; at least one of them (GitLab's at_least_one_of). */
const UPDATE_ATTRIBUTES = ['title', 'description', 'assignee_ids', 'assignee_id', 'milestone_id', 'discussion_locked', 'labels', 'add_labels', 'remove_labels', 'created_at', 'due_date', 'confidential', 'state_event', 'weight'];

/** PUT /projects/:id/issues/:issue_iid. */
export const issueUpdateParams = paramsGuard('issueUpdateParams', { state_event: oneOf(['close', 'reopen'] as const), ...ISSUE_PARAMS }, ({ state_event, ...params }) => {
  const update: IssueUpdate = { ...issueInputOf(params), ...(state_event ? { state_event } : {}) };
  requireAtLeastOne({ ...update }, UPDATE_ATTRIBUTES);
  return update;
});

/** The `duration` of the time tracking routes (400 `duration is missing`), as text: GitLab parses it after finding the issue. */
export const timeTrackingDurationParams = paramsGuard('timeTrackingDurationParams', { duration: required(str()) }, (params) => params.duration);

/** POST .../move: `to_project_id`. */
export const issueMoveParams = paramsGuard('issueMoveParams', { to_project_id: required(int()) }, (params) => params.to_project_id);
