import type { Request, Response } from 'express';
import type { Page } from '../../db/page.js';
import { EVENT_ACTIONS, type EventFilter, type EventTargetType } from '../../db/tables/events.js';
import { event } from '../../entities/events.js';
import { listProjectEvents, listUserEvents, type EventPage } from '../../services/issuables/list-events.js';
import { getUserByIdOrUsername } from '../../services/users/users.js';
import type { SiteContext } from '../../site-context.js';
import { loadProject, projectOf, requireActor, signedIn } from '../middleware/guards.js';
import { paramsGuard, valueGuard } from '../middleware/value-guards.js';
import { paged, sendPage } from '../pagination.js';
import { date, oneOf } from '../params.js';
import type { Route } from '../routes.js';

/**
 * Contribution events (GitLab's events API; python-gitlab's gl.events, user.events and
 * project.events): the filters are read first (Grape validates them before anything, 400), then
 * the caller (GET /events: 401), the user (404 `User`) or the project (404 `Project`). Events are
 * open to anonymous callers where their project is public, as in GitLab.
 */

/** GitLab's target_type filter values and the stored types each stands for (every kind of comment is a `note`). */
const TARGET_TYPES: Readonly<Record<string, readonly EventTargetType[]>> = {
  issue: ['Issue'],
  milestone: ['Milestone'],
  merge_request: ['MergeRequest'],
  note: ['Note', 'DiscussionNote', 'DiffNote'],
  project: ['Project'],
  snippet: [],
  user: [],
  wiki: ['WikiPage'],
  design: [],
  epic: ['Epic'],
};

const eventFilters = paramsGuard(
  'eventFilters',
  {
    action: oneOf(EVENT_ACTIONS),
    target_type: oneOf(Object.keys(TARGET_TYPES)),
    before: date(),
    after: date(),
    sort: oneOf(['asc', 'desc'] as const),
  },
  (params): EventFilter => ({
    action: params.action,
    targetTypes: params.target_type === undefined ? undefined : TARGET_TYPES[params.target_type],
    // GitLab compares with the start of `before`'s day and the end of `after`'s: both ends exclusive.
    createdBefore: params.before === undefined ? undefined : `${params.before}T00:00:00.000Z`,
    createdAfter: params.after === undefined ? undefined : `${params.after}T23:59:59.999Z`,
    sort: params.sort ?? 'desc',
  }),
);

/** The user `:id` names, by id or username; 404 `User` otherwise. */
const loadUser = valueGuard('loadUser(:id)', (ctx, req) => getUserByIdOrUsername(ctx.db, String(req.params.id)));

export const eventsRoutes: readonly Route[] = [
  { method: 'get', path: '/events', guards: [eventFilters, signedIn, paged], handler: listOwnEvents },
  { method: 'get', path: '/users/:id/events', guards: [eventFilters, loadUser, paged], handler: listEventsOfUser },
  { method: 'get', path: '/projects/:id/events', guards: [eventFilters, loadProject(), paged], handler: listEventsOfProject },
];

function listOwnEvents(ctx: SiteContext, req: Request, res: Response): void {
  const page = paged.of(req);
  sendEvents(ctx, req, res, page, listUserEvents(ctx.db, req.actor, requireActor(req).user.id, eventFilters.of(req), page));
}

function listEventsOfUser(ctx: SiteContext, req: Request, res: Response): void {
  const page = paged.of(req);
  sendEvents(ctx, req, res, page, listUserEvents(ctx.db, req.actor, loadUser.of(req).id, eventFilters.of(req), page));
}

function listEventsOfProject(ctx: SiteContext, req: Request, res: Response): void {
  const page = paged.of(req);
  sendEvents(ctx, req, res, page, listProjectEvents(ctx.db, req.actor, projectOf(req), eventFilters.of(req), page));
}

function sendEvents(ctx: SiteContext, req: Request, res: Response, page: Page, events: EventPage): void {
  sendPage(req, res, ctx.externalUrl, page, events.rows.map((row) => event(row, events.relations, ctx)), events.total);
}
