import type { Request } from 'express';
import { requireActor } from '../middleware/guards.js';
import { pathId } from '../middleware/value-guards.js';

/** The `:id` of `/users/:id/...`: the account an admin addresses. */
export const userIdParam = pathId('id');

/**
 * Whose keys or emails a route addresses. `/users/:id/...` names the account in its path, for
 * admins only (SPEC: Users): the route lists userIdParam, which reads the id. `/user/...`
 * addresses the signed-in caller, whom its `signedIn` guard has checked.
 */
export function accountOwnerId(req: Request): number {
  return req.params.id === undefined ? requireActor(req).user.id : userIdParam.of(req);
}
