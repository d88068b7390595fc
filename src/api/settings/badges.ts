import type { Request, Response } from 'express';
import { badge, badgePreview } from '../../entities/badges.js';
import {
  badgePlaceholders,
  createBadge,
  deleteBadge,
  getBadge,
  listBadges,
  previewBadge,
  updateBadge,
  type BadgeSource,
} from '../../services/settings/badges.js';
import type { SiteContext } from '../../site-context.js';
import { groupOf, projectOf } from '../middleware/guards.js';
import { paramsGuard, pathId } from '../middleware/value-guards.js';
import { paged, sendPage } from '../pagination.js';
import { required, str } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';

/** The badge id of the path (400 `badge_id is invalid`), read before the source as Grape does. */
export const badgeIdParam = pathId('badge_id');

/** Create and preview: both urls required (400 `link_url is missing`), read before the source is found. */
export const badgeCreateParams = paramsGuard('badgeCreateParams', { link_url: required(str()), image_url: required(str()), name: str() });

/** Update: every field optional. */
export const badgeUpdateParams = paramsGuard('badgeUpdateParams', { link_url: str(), image_url: str(), name: str() });

/** A badge list's `name` filter. */
export const badgeListParams = paramsGuard('badgeListParams', { name: str() });

/** The handlers of one kind of badge source: a project's routes or a group's. */
export function badgeHandlers(kind: 'project' | 'group') {
  const sourceOf = (req: Request): BadgeSource => (kind === 'project' ? { project: projectOf(req) } : { group: groupOf(req) });
  const placeholders = (ctx: SiteContext, req: Request, source: BadgeSource, urls: string[]) =>
    badgePlaceholders(ctx.db, ctx.config.dataDir, req.actor, source, urls);

  return {
    async list(ctx: SiteContext, req: Request, res: Response): Promise<void> {
      const page = paged.of(req);
      const source = sourceOf(req);
      const { name } = badgeListParams.of(req);
      const result = listBadges(ctx.db, source, name, page);
      const values = await placeholders(ctx, req, source, result.rows.flatMap((row) => [row.link_url, row.image_url]));
      sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => badge(row, values)), result.total);
    },
    async show(ctx: SiteContext, req: Request, res: Response): Promise<void> {
      const source = sourceOf(req);
      const row = getBadge(ctx.db, source, badgeIdParam.of(req));
      sendJson(res, 200, badge(row, await placeholders(ctx, req, source, [row.link_url, row.image_url])));
    },
    async render(ctx: SiteContext, req: Request, res: Response): Promise<void> {
      const source = sourceOf(req);
      const preview = previewBadge(badgeCreateParams.of(req));
      sendJson(res, 200, badgePreview(preview, await placeholders(ctx, req, source, [preview.link_url, preview.image_url])));
    },
    async add(ctx: SiteContext, req: Request, res: Response): Promise<void> {
      const source = sourceOf(req);
      const row = createBadge(ctx.db, source, badgeCreateParams.of(req));
      sendJson(res, 201, badge(row, await placeholders(ctx, req, source, [row.link_url, row.image_url])));
    },
    async edit(ctx: SiteContext, req: Request, res: Response): Promise<void> {
      const source = sourceOf(req);
      const row = updateBadge(ctx.db, source, badgeIdParam.of(req), badgeUpdateParams.of(req));
      sendJson(res, 200, badge(row, await placeholders(ctx, req, source, [row.link_url, row.image_url])));
    },
    remove(ctx: SiteContext, req: Request, res: Response): void {
      deleteBadge(ctx.db, sourceOf(req), badgeIdParam.of(req));
      sendNoContent(res);
    },
  };
}
