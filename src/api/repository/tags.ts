import type { Request, Response } from 'express';
import { releaseEntity, tagEntity } from '../../entities/tags.js';
import { createTag, deleteTag, getTag, listProjectTags, writeRelease } from '../../services/repository/tags.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { paged, sendPage } from '../pagination.js';
import { oneOf, required, str } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';

export const tagListParams = paramsGuard('tagListParams', { order_by: oneOf(['name', 'updated'] as const), sort: oneOf(['asc', 'desc'] as const), search: str() });
export const tagParams = paramsGuard('tagParams', { tag_name: required(str()), ref: required(str()), message: str(), release_description: str() });
export const releaseParams = paramsGuard('releaseParams', { description: required(str()) });

export async function listTagsOfProject(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const params = tagListParams.of(req);
  const page = paged.of(req);
  const options = { orderBy: params.order_by ?? 'updated', sort: params.sort ?? 'desc', search: params.search || undefined };
  const { rows, total } = await listProjectTags(ctx, projectOf(req), req.actor ?? null, options, page.offset, page.perPage);
  sendPage(req, res, ctx.externalUrl, page, rows.map(tagEntity), total);
}

export async function showTag(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  sendJson(res, 200, tagEntity(await getTag(ctx, projectOf(req), req.actor ?? null, String(req.params.tag_name))));
}

export async function addTag(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const params = tagParams.of(req);
  const input = { name: params.tag_name, ref: params.ref, message: params.message, releaseDescription: params.release_description };
  sendJson(res, 201, tagEntity(await createTag(ctx, projectOf(req), requireActor(req), input)));
}

export async function removeTag(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  await deleteTag(ctx, projectOf(req), requireActor(req), String(req.params.tag_name), unmodifiedSince.of(req));
  sendNoContent(res);
}

export async function addRelease(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { description } = releaseParams.of(req);
  sendJson(res, 201, releaseEntity(await writeRelease(ctx, projectOf(req), requireActor(req), String(req.params.tag_name), description, 'create')));
}

export async function editRelease(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { description } = releaseParams.of(req);
  sendJson(res, 200, releaseEntity(await writeRelease(ctx, projectOf(req), requireActor(req), String(req.params.tag_name), description, 'update')));
}
