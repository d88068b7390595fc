import type { Request, Response } from 'express';
import { membership } from '../../entities/members.js';
import { listUserMemberships } from '../../services/members/user-memberships.js';
import type { SiteContext } from '../../site-context.js';
import { paramsGuard, pathId } from '../middleware/value-guards.js';
import { PAGE_PARAMS, pageOf, sendPage } from '../pagination.js';
import { oneOf } from '../params.js';

export const membershipsUserId = pathId('user_id');
export const membershipListParams = paramsGuard('membershipListParams', { type: oneOf(['Project', 'Namespace'] as const), ...PAGE_PARAMS }, (params) => ({
  type: params.type,
  page: pageOf(params),
}));

/** GitLab's Membership entity rows: source_id, source_name, source_type, access_level. */
export function listMemberships(ctx: SiteContext, req: Request, res: Response): void {
  const { type, page } = membershipListParams.of(req);
  const result = listUserMemberships(ctx.db, membershipsUserId.of(req), type, page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map(membership), result.total);
}
