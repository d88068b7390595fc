import { Router, type Request } from 'express';
import { member } from '../../entities/members.js';
import { badRequest } from '../../errors.js';
import {
  addMember,
  changeMember,
  findMemberSource,
  getMember,
  listAllMembers,
  listMembers,
  MEMBER_LEVELS,
  removeMember,
  type MemberSource,
  type SourceKind,
} from '../../services/members/members.js';
import type { SiteContext } from '../../site-context.js';
import { requireActor } from '../middleware/guards.js';
import { readPage, sendPage } from '../pagination.js';
import { date, idOrPath, int, pathInt, readParams, required, str, type Input } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';

/**
 * Group and project members, one family for both sources (GITLAB-NOTES 5 "Members"). Every route
 * needs a signed-in caller; whoever can see the source may read its members, and writing needs
 * admin_members (group owner, project maintainer, admin).
 */
export function membersRouter(ctx: SiteContext): Router {
  const router = Router();
  for (const kind of ['group', 'project'] as const) {
    const base = `/${kind}s/:id/members`;
    const sourceOf = (req: Request): MemberSource => findMemberSource(ctx.db, requireActor(req), kind, idOrPath(String(req.params.id)));

    router.get(base, (req, res) => {
      const { query } = readParams(req.input, { query: str() });
      const page = readPage(req.input);
      const result = listMembers(ctx.db, sourceOf(req), query, page);
      sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => member(row, ctx)), result.total);
    });
    router.get(`${base}/all`, (req, res) => {
      const { query } = readParams(req.input, { query: str() });
      const page = readPage(req.input);
      const result = listAllMembers(ctx.db, sourceOf(req), query, page);
      sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => member(row, ctx)), result.total);
    });
    router.get(`${base}/:user_id`, (req, res) => {
      const userId = pathInt(req.params.user_id, 'user_id');
      sendJson(res, 200, member(getMember(ctx.db, sourceOf(req), userId), ctx));
    });
    router.post(base, (req, res) => {
      const actor = requireActor(req);
      const { user_id: userId, ...input } = readMembership(req.input, kind, true);
      sendJson(res, 201, member(addMember(ctx.db, actor, sourceOf(req), userId!, input), ctx));
    });
    router.put(`${base}/:user_id`, (req, res) => {
      const actor = requireActor(req);
      const userId = pathInt(req.params.user_id, 'user_id');
      const input = readMembership(req.input, kind, false);
      sendJson(res, 200, member(changeMember(ctx.db, actor, sourceOf(req), userId, input), ctx));
    });
    router.delete(`${base}/:user_id`, (req, res) => {
      const actor = requireActor(req);
      const userId = pathInt(req.params.user_id, 'user_id');
      removeMember(ctx.db, actor, sourceOf(req), userId);
      sendNoContent(res);
    });
  }
  return router;
}

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
