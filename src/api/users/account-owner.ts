import type { Request } from 'express';
import { requireActor, requireAdmin } from '../middleware/guards.js';
import { pathInt } from '../params.js';

/** Resolves whose keys or emails a route addresses, checking who may ask. */
export type AccountOwner = (req: Request) => number;

/** `/user/...`: the signed-in caller (401 otherwise). */
const caller: AccountOwner = (req) => requireActor(req).user.id;

/** `/users/:id/...`: admin only (SPEC: Users), 401 anonymous and 403 non-admin before the id is read. */
const pathUser: AccountOwner = (req) => {
  requireAdmin(req);
  return pathInt(String(req.params.id), 'id');
};

/** The two bases under which keys and emails are served, with the owner each one addresses. */
export const ACCOUNT_BASES: readonly (readonly [string, AccountOwner])[] = [
  ['/user', caller],
  ['/users/:id', pathUser],
];
