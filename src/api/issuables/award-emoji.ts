import type { Request, Response } from 'express';
import { usersByIds } from '../../db/tables/project-relations.js';
import { awardEmojiView } from '../../entities/award-emoji.js';
import { awardEmoji, getAward, listAwards, removeAward, type AwardTarget } from '../../services/issuables/award-emoji.js';
import type { SiteContext } from '../../site-context.js';
import { requireActor } from '../middleware/guards.js';
import { pathId, type ValueGuard } from '../middleware/value-guards.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { paged, sendPage } from '../pagination.js';
import { sendJson, sendNoContent } from '../respond.js';
import { awardEmojiParams } from './note-params.js';

/** The `:award_id` of a route (400 `award_id is invalid`). */
export const awardId = pathId('award_id');

/** The handlers of the award emoji of one kind of target (an issue, a note of one), read through `target`. */
export function awardHandlers(target: ValueGuard<AwardTarget>) {
  const one = (ctx: SiteContext, res: Response, status: number, award: ReturnType<typeof getAward>) =>
    sendJson(res, status, awardEmojiView(award, usersByIds(ctx.db, [award.user_id]), ctx));
  return {
    list(ctx: SiteContext, req: Request, res: Response): void {
      const page = paged.of(req);
      const result = listAwards(ctx.db, target.of(req), page);
      const users = usersByIds(ctx.db, [...new Set(result.rows.map((row) => row.user_id))]);
      sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => awardEmojiView(row, users, ctx)), result.total);
    },
    show(ctx: SiteContext, req: Request, res: Response): void {
      one(ctx, res, 200, getAward(ctx.db, target.of(req), awardId.of(req)));
    },
    create(ctx: SiteContext, req: Request, res: Response): void {
      one(ctx, res, 201, awardEmoji(ctx, requireActor(req), target.of(req), awardEmojiParams.of(req)));
    },
    remove(ctx: SiteContext, req: Request, res: Response): void {
      removeAward(ctx, requireActor(req), target.of(req), awardId.of(req), unmodifiedSince.of(req));
      sendNoContent(res);
    },
  };
}
