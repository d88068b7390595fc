import type { Request, Response } from 'express';
import { ACCESS_LEVELS } from '../../db/levels.js';
import { shareGroup, unshareGroup } from '../../services/groups/shares.js';
import type { SiteContext } from '../../site-context.js';
import { groupOf, requireActor } from '../middleware/guards.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { paramsGuard, pathId } from '../middleware/value-guards.js';
import { date, int, intOneOf, required } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';
import { groupDetailOf } from './groups.js';

/** POST /groups/:id/share's parameters (groups.rb): read before the group is looked up, as Grape validates first. */
export const groupShareParams = paramsGuard('groupShareParams', { group_id: required(int()), group_access: required(intOneOf(ACCESS_LEVELS)), expires_at: date() }, (params) => ({
  groupId: params.group_id,
  groupAccess: params.group_access,
  expiresAt: params.expires_at,
}));

export const sharedWithGroupId = pathId('group_id');

/** Shares the group; GitLab answers with the shared group's GroupDetail, `shared_with_groups` now listing the new share. */
export function addGroupShare(ctx: SiteContext, req: Request, res: Response): void {
  const actor = requireActor(req);
  shareGroup(ctx.db, actor, groupOf(req), groupShareParams.of(req));
  sendJson(res, 201, groupDetailOf(ctx, actor, groupOf(req)));
}

export function removeGroupShare(ctx: SiteContext, req: Request, res: Response): void {
  unshareGroup(ctx.db, groupOf(req), sharedWithGroupId.of(req), unmodifiedSince.of(req));
  sendNoContent(res);
}
