import type { Request } from 'express';
import { AppError, forbidden, notFound } from '../../errors.js';
import { findUserById, findUserByUsername } from '../../db/tables/users.js';
import type { AuthMethod } from '../../services/users/authentication.js';
import type { SiteContext } from '../../site-context.js';

const TOKEN_METHODS: ReadonlySet<AuthMethod> = new Set(['personal_access_token', 'impersonation_token', 'oauth_token']);

/** Sudo as the SPEC orders its checks: 401, admin, token kind, scope, then the target user (GITLAB-NOTES 1.4). */
export function applySudo(ctx: SiteContext, req: Request): void {
  const header = req.headers.sudo;
  const raw = req.input.sudo ?? (typeof header === 'string' ? header : undefined);
  if (raw === undefined || raw === '') return;
  const actor = req.actor;
  if (!actor) throw new AppError('unauthorized');
  if (!actor.user.admin) throw forbidden('Must be admin to use sudo');
  // Only a session is no token: the SPEC defines an impersonation token as a personal access
  // token, so it reaches the scope check (and, lacking `sudo`, gets insufficient_scope) like one.
  if (!TOKEN_METHODS.has(actor.via)) throw forbidden('Must be authenticated using an OAuth or Personal Access Token to use sudo');
  if (!actor.scopes.includes('sudo')) throw new AppError('insufficient_scope', 'sudo');
  const id = String(raw);
  const target = /^\d+$/.test(id) ? findUserById(ctx.db, Number(id)) : findUserByUsername(ctx.db, id);
  if (!target || target.ghost) throw notFound(`User with ID or username '${id}'`);
  req.actor = { ...actor, user: target, sudoFrom: actor.user };
}
