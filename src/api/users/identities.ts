import type { Request, Response } from 'express';
import { removeIdentity } from '../../services/users/identities.js';
import type { SiteContext } from '../../site-context.js';
import { userIdParam } from './account-owner.js';
import { sendNoContent } from '../respond.js';

/** `DELETE /users/:id/identities/:provider` (admin): 204, 404 `User` or `Identity`. */
export function removeUserIdentity(ctx: SiteContext, req: Request, res: Response): void {
  removeIdentity(ctx.db, userIdParam.of(req), String(req.params.provider));
  sendNoContent(res);
}
