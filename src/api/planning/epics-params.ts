import { forbidden } from '../../errors.js';
import { findEpic } from '../../services/planning/epics.js';
import { groupOf } from '../middleware/guards.js';
import { paramsGuard, pathId, valueGuard } from '../middleware/value-guards.js';
import { PAGE_PARAMS, pageOf } from '../pagination.js';
import { date, int, list, oneOf, required, requireAtLeastOne, str } from '../params.js';
import type { Guard } from '../routes.js';

/** Epics are an ee feature: the ce edition answers 403 on every epic route before any other check (GITLAB-NOTES 1.4, 2.5). */
export const epicsAvailable: Guard = {
  name: 'epicsAvailable',
  check: (ctx) => {
    if (ctx.config.edition !== 'ee') throw forbidden();
  },
};

export const epicIid = pathId('epic_iid');
export const epicIssueId = pathId('epic_issue_id');
export const issueId = pathId('issue_id');

/** The epic the path names, in the loaded group (404 `Not found`). */
export const namedEpic = valueGuard('namedEpic', (ctx, req) => findEpic(ctx.db, groupOf(req), epicIid.of(req)));

const epicFields = { description: str(), start_date: date(), end_date: date(), labels: list(str()) };

/** POST: `title` (400 `title is missing`), optional description, dates (400 on a bad date) and labels (a comma list or an array). */
export const epicCreateParams = paramsGuard('epicCreateParams', { title: required(str()), ...epicFields });

/** PUT: at least one attribute (400 naming them), and `state_event` close or reopen. */
export const epicUpdateParams = paramsGuard('epicUpdateParams', { title: str(), ...epicFields, state_event: oneOf(['close', 'reopen'] as const) }, (params) => {
  requireAtLeastOne(params, ['title', 'description', 'start_date', 'end_date', 'labels', 'state_event']);
  return params;
});

/** GET list: author_id, labels, search, state, order_by (created_at, updated_at) and sort (desc by default). */
export const epicListParams = paramsGuard(
  'epicListParams',
  {
    author_id: int({ min: 0 }),
    labels: list(str()),
    search: str(),
    state: oneOf(['opened', 'closed', 'all'] as const),
    order_by: oneOf(['created_at', 'updated_at'] as const),
    sort: oneOf(['asc', 'desc'] as const),
    ...PAGE_PARAMS,
  },
  (params) => ({
    filter: {
      ...(params.author_id !== undefined ? { authorId: params.author_id } : {}),
      ...(params.state && params.state !== 'all' ? { state: params.state } : {}),
      ...(params.search ? { search: params.search } : {}),
      ...(params.labels?.length ? { labels: params.labels } : {}),
      orderBy: params.order_by ?? 'created_at',
      sort: params.sort ?? 'desc',
    },
    page: pageOf(params),
  }),
);

/** PUT of an epic issue: `move_before_id` / `move_after_id`, association ids (decision 15). */
export const epicIssueMoveParams = paramsGuard('epicIssueMoveParams', { move_before_id: int({ min: 1 }), move_after_id: int({ min: 1 }) }, (params) => ({
  beforeId: params.move_before_id,
  afterId: params.move_after_id,
}));
