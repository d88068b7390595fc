import type { MergeRequestInput } from '../../services/merge-requests/attributes.js';
import type { MergeRequestCreate } from '../../services/merge-requests/merge-requests.js';
import { valueGuard } from '../middleware/value-guards.js';
import { pathId } from '../middleware/value-guards.js';
import { bool, int, list, oneOf, readParams, required, requireAtLeastOne, str, type Input, type Reader } from '../params.js';

/** The `:merge_request_iid` of a route (400 `merge_request_iid is invalid`), read before the project is found, as Grape does. */
export const mergeRequestIid = pathId('merge_request_iid');

/** An id where an empty value means 0 (SPEC: `assignee_id` and `milestone_id` "0 or empty unassigns"). */
const idOrEmpty: Reader<number | undefined> = (raw, name) => (raw === '' ? 0 : int({ min: 0 })(raw, name));

/** The attributes a create and an edit share (GitLab's merge request params), typed. */
function readMergeRequestInput(input: Input): MergeRequestInput {
  const params = readParams(input, {
    title: str(),
    description: str(),
    target_branch: str(),
    assignee_id: idOrEmpty,
    milestone_id: idOrEmpty,
    labels: list(str()),
    remove_source_branch: bool(),
    squash: bool(),
    discussion_locked: bool(),
    allow_maintainer_to_push: bool(),
    allow_collaboration: bool(),
  });
  const { allow_collaboration, labels, ...rest } = params;
  const entries = Object.entries({
    ...rest,
    labels: labels?.map((title) => title.trim()).filter(Boolean),
    allow_maintainer_to_push: rest.allow_maintainer_to_push ?? allow_collaboration,
  }).filter(([, value]) => value !== undefined);
  return Object.fromEntries(entries) as MergeRequestInput;
}

/** POST /projects/:id/merge_requests: `source_branch`, `target_branch` and `title` are required (400 `<name> is missing`). */
export const mergeRequestCreateParams = valueGuard('mergeRequestCreateParams', (_ctx, req): MergeRequestCreate => {
  const required_ = readParams(req.input, { source_branch: required(str()), target_branch: required(str()), title: required(str()) });
  const extra = readParams(req.input, { target_project_id: int(), approvals_before_merge: int({ min: 0 }) });
  return {
    ...readMergeRequestInput(req.input),
    ...required_,
    ...(extra.target_project_id !== undefined ? { target_project_id: extra.target_project_id } : {}),
    ...(extra.approvals_before_merge !== undefined ? { approvals_before_merge: extra.approvals_before_merge } : {}),
  };
});

/** What an edit may change; at least one of them (decision 14: 400 naming them). */
const UPDATE_ATTRIBUTES = ['target_branch', 'title', 'assignee_id', 'milestone_id', 'labels', 'description', 'state_event', 'remove_source_branch', 'squash', 'discussion_locked', 'allow_maintainer_to_push'];

export type MergeRequestUpdate = MergeRequestInput & { readonly state_event?: 'close' | 'reopen' };

/** PUT /projects/:id/merge_requests/:merge_request_iid. */
export const mergeRequestUpdateParams = valueGuard('mergeRequestUpdateParams', (_ctx, req): MergeRequestUpdate => {
  const { state_event } = readParams(req.input, { state_event: oneOf(['close', 'reopen'] as const) });
  const update: MergeRequestUpdate = { ...readMergeRequestInput(req.input), ...(state_event ? { state_event } : {}) };
  requireAtLeastOne({ ...update }, UPDATE_ATTRIBUTES);
  return update;
});
