import type { Request, Response } from 'express';
import { member } from '../../entities/members.js';
import { badRequest } from '../../errors.js';
import { addMember, changeMember, getMember, listAllMembers, listMembers, MEMBER_LEVELS, removeMember, type MemberSource, type SourceKind } from '../../services/members/members.js';
import type { SiteContext } from '../../site-context.js';
import { groupOf, requireActor } from '../middleware/guards.js';
import { paged, sendPage } from '../pagination.js';
import { clearable, date, int, required, str } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';
import { paramsGuard, pathId, type ValueGuard } from '../middleware/value-guards.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import type { Handler } from '../routes.js';

export function listDirectMembers(ctx: SiteContext, req: Request, res: Response): void {
  const { query } = memberQueryParams.of(req);
  const page = paged.of(req);
  const result = listMembers(ctx.db, sourceOf(req), query, page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => member(row, ctx)), result.total);
}

export function listInheritedMembers(ctx: SiteContext, req: Request, res: Response): void {
  const { query } = memberQueryParams.of(req);
  const page = paged.of(req);
  const result = listAllMembers(ctx.db, sourceOf(req), query, page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => member(row, ctx)), result.total);
}

export function showMember(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, member(getMember(ctx.db, sourceOf(req), userIdParam.of(req)), ctx));
}

export const addMemberTo =
  (params: MembershipParams): Handler =>
  (ctx, req, res) => {
    const { user_id: userId, ...input } = params.of(req);
    sendJson(res, 201, member(addMember(ctx.db, requireActor(req), sourceOf(req), userId!, input), ctx));
  };

export const editMember =
  (params: MembershipParams): Handler =>
  (ctx, req, res) =>
    sendJson(res, 200, member(changeMember(ctx.db, sourceOf(req), userIdParam.of(req), params.of(req)), ctx));

export function removeMemberFrom(ctx: SiteContext, req: Request, res: Response): void {
  removeMember(ctx.db, requireActor(req), sourceOf(req), userIdParam.of(req), unmodifiedSince.of(req));
  sendNoContent(res);
}

/**
 * Grape validates parameters before the endpoint finds the group or project, so a bad one answers
 * 400 even where the source is invisible (404) or not the caller's to manage (403): these guards
 * read them ahead of loadGroup/loadProject.
 */
export const memberQueryParams = paramsGuard('memberQueryParams', { query: str() });
export const userIdParam = pathId('user_id');
export type MembershipParams = ValueGuard<ReturnType<typeof membershipOf>>;
/** A membership's parameters for a source of this kind: user_id is required when `creating`. */
export const membershipParams = (kind: SourceKind, creating: boolean): MembershipParams =>
  // JSON null means "not given" (W7); an empty string clears the expiry, as GitLab's form does.
  paramsGuard('membershipParams', { user_id: creating ? required(int()) : int(), access_level: required(int()), expires_at: clearable(date()) }, (params) => membershipOf(params, kind));

/** The group or project a loadGroup or loadProject guard put on the request. */
function sourceOf(req: Request): MemberSource {
  return req.project ? { kind: 'project', project: req.project } : { kind: 'group', group: groupOf(req) };
}

function membershipOf(params: { user_id: number | undefined; access_level: number; expires_at: string | null | undefined }, kind: SourceKind) {
  if (!MEMBER_LEVELS[kind].includes(params.access_level)) throw badRequest('access_level does not have a valid value');
  return { user_id: params.user_id, accessLevel: params.access_level, expiresAt: params.expires_at };
}
