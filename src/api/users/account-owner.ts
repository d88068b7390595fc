import type { Request } from 'express';
import { requireActor } from '../middleware/guards.js';
import { pathInt } from '../params.js';

/**
 * Whose keys or emails a route addresses. `/users/:id/...` names the account in its path, for
 * admins only (SPEC: Users): the route's `admin` guard has answered 401 and 403 before the id is
 * read. `/user/...` addresses the signed-in caller, whom its `signedIn` guard has checked.
 */
export function accountOwnerId(req: Request): number {
  return req.params.id === undefined ? requireActor(req).user.id : pathInt(String(req.params.id), 'id');
}
