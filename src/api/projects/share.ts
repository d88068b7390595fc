import type { Request, Response } from 'express';
import { projectGroupLink } from '../../entities/projects.js';
import { badRequest } from '../../errors.js';
import { shareProject, unshareProject } from '../../services/projects/projects.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { paramsGuard, pathId } from '../middleware/value-guards.js';
import { date, int, required, type Reader } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';

/** The share's group, access and expiry, read before admin_project is asked. */
export const projectShareParams = paramsGuard('projectShareParams', { group_id: required(int()), group_access: required(shareAccess()), expires_at: date() }, (params) => ({
  groupId: params.group_id,
  groupAccess: params.group_access,
  expiresAt: params.expires_at,
}));

export const sharedGroupId = pathId('group_id');

export function addShare(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 201, projectGroupLink(shareProject(ctx.db, requireActor(req), projectOf(req), projectShareParams.of(req))));
}

export function removeShare(ctx: SiteContext, req: Request, res: Response): void {
  unshareProject(ctx.db, projectOf(req), sharedGroupId.of(req), unmodifiedSince.of(req));
  sendNoContent(res);
}

/** Project shares grant guest to maintainer; owner (50) is for group members only (GITLAB-NOTES 1.5). */
function shareAccess(): Reader<number | undefined> {
  const read = int();
  return (raw, name) => {
    const value = read(raw, name);
    if (value !== undefined && ![10, 20, 30, 40].includes(value)) throw badRequest(`${name} does not have a valid value`);
    return value;
  };
}
