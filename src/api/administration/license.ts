import type { Request, Response } from 'express';
import { editionLicenseView } from '../../entities/license.js';
import { siteStatisticsView } from '../../entities/site-statistics.js';
import { licenseFigures, siteStatistics } from '../../services/administration/statistics.js';
import type { SiteContext } from '../../site-context.js';
import { sendJson } from '../respond.js';

export function showStatistics(ctx: SiteContext, _req: Request, res: Response): void {
  sendJson(res, 200, siteStatisticsView(siteStatistics(ctx.db)));
}

/** GET /license (ee): the edition as a license object (ce has no such route). */
export function showLicenseOfEdition(ctx: SiteContext, _req: Request, res: Response): void {
  sendJson(res, 200, editionLicenseView(licenseFigures(ctx.db), ctx.externalUrl));
}
