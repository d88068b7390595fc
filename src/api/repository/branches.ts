import type { Request, Response } from 'express';
import { branchEntity } from '../../entities/repository.js';
import { createBranch, deleteBranch, deleteMergedBranches, getBranch, listBranches } from '../../services/repository/branches.js';
import { setBranchProtection, unprotectBranch } from '../../services/repository/protected-refs.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { paged, sendPage } from '../pagination.js';
import { bool, required, str } from '../params.js';

export const branchListParams = paramsGuard('branchListParams', { search: str() });
export const branchParams = paramsGuard('branchParams', { branch: required(str()), ref: required(str()) });
export const branchProtectParams = paramsGuard('branchProtectParams', { developers_can_push: bool(), developers_can_merge: bool() });
import { sendJson, sendNoContent } from '../respond.js';

export async function listProjectBranches(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { search } = branchListParams.of(req);
  const page = paged.of(req);
  const { rows, total } = await listBranches(ctx, projectOf(req), req.actor ?? null, search || undefined, page.offset, page.perPage);
  sendPage(req, res, ctx.externalUrl, page, rows.map(branchEntity), total);
}

export async function showBranch(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  sendJson(res, 200, branchEntity(await getBranch(ctx, projectOf(req), req.actor ?? null, String(req.params.branch))));
}

export async function addBranch(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { branch, ref } = branchParams.of(req);
  sendJson(res, 201, branchEntity(await createBranch(ctx, projectOf(req), requireActor(req), branch, ref)));
}

export async function removeBranch(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  await deleteBranch(ctx, projectOf(req), requireActor(req), String(req.params.branch), unmodifiedSince.of(req));
  sendNoContent(res);
}

/** PUT .../branches/:branch/protect (GitLab 10.x): the branch's protected row, with `developers_can_push` / `developers_can_merge`. */
export async function protectOneBranch(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const params = branchProtectParams.of(req);
  const project = projectOf(req);
  const name = String(req.params.branch);
  await getBranch(ctx, project, req.actor ?? null, name);
  setBranchProtection(ctx.db, requireActor(req), project, name, params.developers_can_push ?? false, params.developers_can_merge ?? false);
  sendJson(res, 200, branchEntity(await getBranch(ctx, project, req.actor ?? null, name)));
}

/** PUT .../branches/:branch/unprotect: removes the branch's own row (a wildcard that covers it stays). */
export async function unprotectOneBranch(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const project = projectOf(req);
  const name = String(req.params.branch);
  await getBranch(ctx, project, req.actor ?? null, name);
  unprotectBranch(ctx.db, requireActor(req), project, name, 'ignore', null);
  sendJson(res, 200, branchEntity(await getBranch(ctx, project, req.actor ?? null, name)));
}

/** DELETE .../merged_branches: 202 at once, the branches go in the background (GitLab's async_execute). */
export function removeMergedBranches(ctx: SiteContext, req: Request, res: Response): void {
  const project = projectOf(req);
  const actor = requireActor(req);
  sendJson(res, 202, { message: '202 Accepted' });
  deleteMergedBranches(ctx, project, actor).catch((error: unknown) => ctx.log.error({ err: error, project_id: project.id }, 'deleting merged branches failed'));
}
