import type { Request, Response } from 'express';
import type { Page, Paged } from '../../db/page.js';
import type { MergeRequestRow } from '../../db/tables/merge-requests.js';
import { mergeRequestBasic, mergeRequestSimple, mergeRequestView } from '../../entities/merge-requests.js';
import { loadMergeRequestRelations } from '../../services/merge-requests/relations.js';
import type { SiteContext } from '../../site-context.js';
import { sendPage } from '../pagination.js';
import { sendJson } from '../respond.js';

/** One merge request as the MergeRequest entity, its relations loaded in one query per kind. */
export function sendMergeRequest(ctx: SiteContext, req: Request, res: Response, status: number, mergeRequest: MergeRequestRow): void {
  const rel = loadMergeRequestRelations(ctx.db, req.actor, [mergeRequest], { single: true });
  sendJson(res, status, mergeRequestView(mergeRequest, rel, ctx));
}

/** A page of merge requests as MergeRequestBasic (or MergeRequestSimple with `view=simple`), with the pagination headers. */
export function sendMergeRequestPage(ctx: SiteContext, req: Request, res: Response, page: Page, result: Paged<MergeRequestRow>, simple: boolean): void {
  const rel = loadMergeRequestRelations(ctx.db, req.actor, result.rows);
  const view = simple ? mergeRequestSimple : mergeRequestBasic;
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => view(row, rel, ctx)), result.total);
}
