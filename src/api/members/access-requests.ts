import type { Request, Response } from 'express';
import { accessRequester, member } from '../../entities/members.js';
import { badRequest } from '../../errors.js';
import { approveAccessRequest, listAccessRequests, removeAccessRequest, requestAccess } from '../../services/members/access-requests.js';
import { MEMBER_LEVELS, type MemberSource, type SourceKind } from '../../services/members/members.js';
import { ACCESS } from '../../db/levels.js';
import type { SiteContext } from '../../site-context.js';
import { groupOf, requireActor } from '../middleware/guards.js';
import { paramsGuard, type ValueGuard } from '../middleware/value-guards.js';
import { paged, sendPage } from '../pagination.js';
import { int } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';
import { userIdParam } from './members.js';

/** The level an approval gives: developer unless told, one the source's members may hold (400 otherwise). */
export const approvalParams = (kind: SourceKind): ValueGuard<number> =>
  paramsGuard('approvalParams', { access_level: int() }, ({ access_level: level = ACCESS.developer }) => {
    if (!MEMBER_LEVELS[kind].includes(level)) throw badRequest('access_level does not have a valid value');
    return level;
  });

/** The group or project a loadGroup or loadProject guard put on the request. */
const sourceOf = (req: Request): MemberSource => (req.project ? { kind: 'project', project: req.project } : { kind: 'group', group: groupOf(req) });

export function listRequests(ctx: SiteContext, req: Request, res: Response): void {
  const page = paged.of(req);
  const result = listAccessRequests(ctx.db, sourceOf(req), page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => accessRequester(row, ctx)), result.total);
}

export function addRequest(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 201, accessRequester(requestAccess(ctx.db, requireActor(req), sourceOf(req)), ctx));
}

export const approveRequest =
  (params: ValueGuard<number>) =>
  (ctx: SiteContext, req: Request, res: Response): void =>
    sendJson(res, 201, member(approveAccessRequest(ctx.db, requireActor(req), sourceOf(req), userIdParam.of(req), params.of(req)), ctx));

export function removeRequest(ctx: SiteContext, req: Request, res: Response): void {
  removeAccessRequest(ctx.db, requireActor(req), sourceOf(req), userIdParam.of(req));
  sendNoContent(res);
}
