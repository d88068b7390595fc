import type { Request, Response } from 'express';
import { member } from '../../entities/members.js';
import { badRequest } from '../../errors.js';
import { addMember, changeMember, getMember, listAllMembers, listMembers, MEMBER_LEVELS, removeMember, type MemberSource, type SourceKind } from '../../services/members/members.js';
import type { SiteContext } from '../../site-context.js';
import { groupOf, requireActor } from '../middleware/guards.js';
import { readPage, sendPage } from '../pagination.js';
import { date, int, pathInt, readParams, required, str, type Input } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';
import type { Guard } from '../routes.js';

export function listDirectMembers(ctx: SiteContext, req: Request, res: Response): void {
  const { query } = readQuery(req.input);
  const page = readPage(req.input);
  const result = listMembers(ctx.db, sourceOf(req), query, page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => member(row, ctx)), result.total);
}

export function listInheritedMembers(ctx: SiteContext, req: Request, res: Response): void {
  const { query } = readQuery(req.input);
  const page = readPage(req.input);
  const result = listAllMembers(ctx.db, sourceOf(req), query, page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => member(row, ctx)), result.total);
}

export function showMember(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, member(getMember(ctx.db, sourceOf(req), memberUserId(req)), ctx));
}

export function addMemberTo(ctx: SiteContext, req: Request, res: Response): void {
  const source = sourceOf(req);
  const { user_id: userId, ...input } = readMembership(req.input, source.kind, true);
  sendJson(res, 201, member(addMember(ctx.db, requireActor(req), source, userId!, input), ctx));
}

export function editMember(ctx: SiteContext, req: Request, res: Response): void {
  const source = sourceOf(req);
  const input = readMembership(req.input, source.kind, false);
  sendJson(res, 200, member(changeMember(ctx.db, source, memberUserId(req), input), ctx));
}

export function removeMemberFrom(ctx: SiteContext, req: Request, res: Response): void {
  removeMember(ctx.db, requireActor(req), sourceOf(req), memberUserId(req));
  sendNoContent(res);
}

/**
 * Grape validates parameters before the endpoint finds the group or project, so a bad one answers
 * 400 even where the source is invisible (404) or not the caller's to manage (403): these guards
 * read them ahead of loadGroup/loadProject, and the handler reads the same input again.
 */
export const queryParams: Guard = { name: 'queryParams', check: (_ctx, req) => void readQuery(req.input) };
export const userIdParam: Guard = { name: 'userIdParam', check: (_ctx, req) => void memberUserId(req) };
export function membershipParams(kind: SourceKind, creating: boolean): Guard {
  return { name: 'membershipParams', check: (_ctx, req) => void readMembership(req.input, kind, creating) };
}

/** The group or project a loadGroup or loadProject guard put on the request. */
function sourceOf(req: Request): MemberSource {
  return req.project ? { kind: 'project', project: req.project } : { kind: 'group', group: groupOf(req) };
}

const readQuery = (input: Input) => readParams(input, { query: str() });
const memberUserId = (req: Request) => pathInt(req.params.user_id, 'user_id');

/** `access_level` must be one the source holds: owner (50) exists for groups only (GITLAB-NOTES 1.5). */
function readMembership(input: Input, kind: SourceKind, creating: boolean) {
  const params = readParams(input, {
    user_id: creating ? required(int()) : int(),
    access_level: required(int()),
    expires_at: date(),
  });
  if (!MEMBER_LEVELS[kind].includes(params.access_level)) throw badRequest('access_level does not have a valid value');
  // JSON null means "not given" (W7); an empty string clears the expiry, as GitLab's form does.
  const expiresAt = input.expires_at === '' ? null : params.expires_at;
  return { user_id: params.user_id, accessLevel: params.access_level, expiresAt };
}
