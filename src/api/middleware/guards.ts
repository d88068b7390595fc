import type { Request } from 'express';
import { AppError, forbidden } from '../../errors.js';
import type { Actor } from '../../services/authentication.js';
import { isAdmin } from '../../services/permissions.js';

/** The signed-in actor, or 401. */
export function requireActor(req: Request): Actor {
  if (!req.actor) throw new AppError('unauthorized');
  return req.actor;
}

/** Admin-only routes: 401 for anonymous callers, 403 for everyone else who is not an admin. */
export function requireAdmin(req: Request): Actor {
  const actor = requireActor(req);
  if (!isAdmin(actor)) throw forbidden();
  return actor;
}
