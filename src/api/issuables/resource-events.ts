import type { Request, Response } from 'express';
import type { EntityContext } from '../../entities/users.js';
import { resourceLabelEventView, resourceMilestoneEventView, resourceStateEventView, resourceWeightEventView } from '../../entities/resource-events.js';
import type { ResourceEventRelations } from '../../entities/resource-events.js';
import type { Noteable } from '../../services/issuables/noteables.js';
import { labelEvents, loadResourceEventRelations, milestoneEvents, stateEvents, weightEvents, type ResourceEventKind } from '../../services/issuables/resource-events.js';
import type { SiteContext } from '../../site-context.js';
import { pathId, type ValueGuard } from '../middleware/value-guards.js';
import { paged, sendPage } from '../pagination.js';
import { sendJson } from '../respond.js';

/** The `:event_id` of a route (400 `event_id is invalid`). */
export const eventId = pathId('event_id');

type EventRow = { user_id: number | null; label_id?: number | null; milestone_id?: number | null };

function handlers<Row extends EventRow>(kind: ResourceEventKind<Row>, view: (row: Row, rel: ResourceEventRelations, ctx: EntityContext) => unknown, noteable: ValueGuard<Noteable>) {
  return {
    list(ctx: SiteContext, req: Request, res: Response): void {
      const subject = noteable.of(req);
      const page = paged.of(req);
      const result = kind.page(ctx.db, subject, page);
      const rel = loadResourceEventRelations(ctx.db, subject, result.rows);
      sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => view(row, rel, ctx)), result.total);
    },
    show(ctx: SiteContext, req: Request, res: Response): void {
      const subject = noteable.of(req);
      const row = kind.one(ctx.db, subject, eventId.of(req));
      sendJson(res, 200, view(row, loadResourceEventRelations(ctx.db, subject, [row]), ctx));
    },
  };
}

/** The handlers of the three resource event APIs of one kind of noteable. */
export function resourceEventHandlers(noteable: ValueGuard<Noteable>) {
  return {
    label: handlers(labelEvents, resourceLabelEventView, noteable),
    milestone: handlers(milestoneEvents, resourceMilestoneEventView, noteable),
    state: handlers(stateEvents, resourceStateEventView, noteable),
  };
}

/** The handlers of an issue's resource weight events. */
export const weightEventHandlers = (issue: ValueGuard<Noteable>) => handlers(weightEvents, resourceWeightEventView, issue);
