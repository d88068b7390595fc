import type { Request, Response } from 'express';
import { branchEntity } from '../../entities/repository.js';
import { createBranch, deleteBranch, getBranch, listBranches } from '../../services/repository/branches.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { readPage, sendPage } from '../pagination.js';
import { readParams, required, str } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';

export async function listProjectBranches(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { search } = readParams(req.input, { search: str() });
  const page = readPage(req.input);
  const { rows, total } = await listBranches(ctx, projectOf(req), search || undefined, page.offset, page.perPage);
  sendPage(req, res, ctx.externalUrl, page, rows.map(branchEntity), total);
}

export async function showBranch(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  sendJson(res, 200, branchEntity(await getBranch(ctx, projectOf(req), String(req.params.branch))));
}

export async function addBranch(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { branch, ref } = readParams(req.input, { branch: required(str()), ref: required(str()) });
  sendJson(res, 201, branchEntity(await createBranch(ctx, projectOf(req), requireActor(req), branch, ref)));
}

export async function removeBranch(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  await deleteBranch(ctx, projectOf(req), requireActor(req), String(req.params.branch));
  sendNoContent(res);
}
