import type { Request, Response } from 'express';
import { protectedBranchEntity, protectedTagEntity } from '../../entities/protected-refs.js';
import { badRequest } from '../../errors.js';
import {
  getProtectedBranch,
  getProtectedTag,
  listProtectedBranches,
  listProtectedTags,
  protectBranch,
  protectTag,
  unprotectBranch,
  unprotectTag,
} from '../../services/repository/protected-refs.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { paged, sendPage } from '../pagination.js';
import { int, required, str, type Reader } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';

/** An access level a protection takes (GitLab's ProtectedRefAccess::ALLOWED_ACCESS_LEVELS); 400 `<name> does not have a valid value` else. */
function accessLevel(allowed: readonly number[]): Reader<number | undefined> {
  const read = int();
  return (raw, name) => {
    const value = read(raw, name);
    if (value !== undefined && !allowed.includes(value)) throw badRequest(`${name} does not have a valid value`);
    return value;
  };
}
const REF_LEVELS = [0, 30, 40];

export const protectedBranchParams = paramsGuard('protectedBranchParams', {
  name: required(str({ max: 255 })),
  push_access_level: accessLevel(REF_LEVELS),
  merge_access_level: accessLevel(REF_LEVELS),
  unprotect_access_level: accessLevel([30, 40, 60]),
});
export const protectedTagParams = paramsGuard('protectedTagParams', { name: required(str({ max: 255 })), create_access_level: accessLevel(REF_LEVELS) });

export function listProjectProtectedBranches(ctx: SiteContext, req: Request, res: Response): void {
  const page = paged.of(req);
  const { rows, total } = listProtectedBranches(ctx.db, projectOf(req), page);
  sendPage(req, res, ctx.externalUrl, page, rows.map(protectedBranchEntity), total);
}

export function showProtectedBranch(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, protectedBranchEntity(getProtectedBranch(ctx.db, projectOf(req), String(req.params.name))));
}

export async function addProtectedBranch(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const params = protectedBranchParams.of(req);
  const row = await protectBranch(ctx.db, projectOf(req), {
    name: params.name,
    pushAccessLevel: params.push_access_level,
    mergeAccessLevel: params.merge_access_level,
    unprotectAccessLevel: params.unprotect_access_level,
  });
  sendJson(res, 201, protectedBranchEntity(row));
}

export function removeProtectedBranch(ctx: SiteContext, req: Request, res: Response): void {
  unprotectBranch(ctx.db, requireActor(req), projectOf(req), String(req.params.name), 'fail', unmodifiedSince.of(req));
  sendNoContent(res);
}

export function listProjectProtectedTags(ctx: SiteContext, req: Request, res: Response): void {
  const page = paged.of(req);
  const { rows, total } = listProtectedTags(ctx.db, projectOf(req), page);
  sendPage(req, res, ctx.externalUrl, page, rows.map(protectedTagEntity), total);
}

export function showProtectedTag(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, protectedTagEntity(getProtectedTag(ctx.db, projectOf(req), String(req.params.name))));
}

export async function addProtectedTag(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const params = protectedTagParams.of(req);
  sendJson(res, 201, protectedTagEntity(await protectTag(ctx.db, projectOf(req), params.name, params.create_access_level)));
}

export function removeProtectedTag(ctx: SiteContext, req: Request, res: Response): void {
  unprotectTag(ctx.db, projectOf(req), String(req.params.name), unmodifiedSince.of(req));
  sendNoContent(res);
}
