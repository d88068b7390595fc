import type { Request, Response } from 'express';
import type { Page, Paged } from '../../db/page.js';
import type { MergeRequestRow } from '../../db/tables/merge-requests.js';
import { mergeRequestBasic, mergeRequestSimple, mergeRequestView, type MergeRequestViewOptions } from '../../entities/merge-requests.js';
import { loadMergeRequestRelations } from '../../services/merge-requests/relations.js';
import type { SiteContext } from '../../site-context.js';
import { sendPage } from '../pagination.js';
import { sendJson } from '../respond.js';

/** One merge request as the MergeRequest entity, its relations loaded in one query per kind. */
export function sendMergeRequest(ctx: SiteContext, req: Request, res: Response, status: number, mergeRequest: MergeRequestRow): void {
  const rel = loadMergeRequestRelations(ctx.db, req.actor, [mergeRequest], { edition: ctx.config.edition, single: true });
  sendJson(res, status, mergeRequestView(mergeRequest, rel, ctx));
}

/** A page of merge requests as MergeRequestBasic (or MergeRequestSimple with `view=simple`), with the pagination headers. */
export function sendMergeRequestPage(ctx: SiteContext, req: Request, res: Response, page: Page, result: Paged<MergeRequestRow>, simple: boolean, options: MergeRequestViewOptions = {}): void {
  const rel = loadMergeRequestRelations(ctx.db, req.actor, result.rows, { edition: ctx.config.edition });
  const rows = result.rows.map((row) => (simple ? mergeRequestSimple(row, rel, ctx) : mergeRequestBasic(row, rel, ctx, options)));
  sendPage(req, res, ctx.externalUrl, page, rows, result.total);
}
