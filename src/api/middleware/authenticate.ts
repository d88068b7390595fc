import type { Request, RequestHandler } from 'express';
import { AppError } from '../../errors.js';
import { authenticateCredential, missingScope, touchActivity, type Actor, type Credential } from '../../services/users/authentication.js';
import { applySudo } from './sudo.js';
import type { SiteContext } from '../../site-context.js';

export const SESSION_COOKIE = '_geoforge_session';

/**
 * Sets req.actor from a personal, impersonation or OAuth token, or the session cookie, then
 * applies sudo. A credential that is present but unusable is a 401 even on public reads
 * (GITLAB-NOTES 1.4).
 */
export function authenticate(ctx: SiteContext): RequestHandler {
  return (req, _res, next) => {
    req.actor = identify(ctx, req);
    applySudo(ctx, req);
    next();
  };
}

function identify(ctx: SiteContext, req: Request): Actor | null {
  const actor = credentialActor(ctx, req);
  if (!actor) return null;
  const scope = missingScope(actor.scopes, req.method, req.path);
  if (scope) throw new AppError('insufficient_scope', scope);
  recordActivity(ctx, actor);
  return actor;
}

/**
 * The actor behind a request's credentials, the same ones the API takes (Private-Token header,
 * Bearer, `private_token`/`access_token` parameters, session cookie), without the API's token
 * scope rules or sudo: for routes outside /api/v4. Null without credentials; 401 when a
 * credential is present but unusable. Needs `req.input` (parseInput) for the parameters.
 */
export function resolveActor(ctx: SiteContext, req: Request): Actor | null {
  const actor = credentialActor(ctx, req);
  if (actor) recordActivity(ctx, actor);
  return actor;
}

function credentialActor(ctx: SiteContext, req: Request): Actor | null {
  const credential = readCredential(req);
  if (!credential) return null;
  const actor = authenticateCredential(ctx.db, credential);
  if (!actor) throw new AppError('unauthorized');
  return actor;
}

// A secondary never writes replicated rows itself; activity is recorded where writes land.
function recordActivity(ctx: SiteContext, actor: Actor): void {
  if (ctx.config.role === 'primary') touchActivity(ctx.db, actor.user);
}

function readCredential(req: Request): Credential | null {
  const header = req.headers['private-token'];
  if (typeof header === 'string' && header) return { kind: 'private_token', secret: header };
  const authorization = req.headers.authorization;
  if (authorization && /^bearer\s+/i.test(authorization)) return { kind: 'bearer', secret: authorization.replace(/^bearer\s+/i, '') };
  const { private_token: privateToken, access_token: accessToken } = req.input;
  if (typeof privateToken === 'string' && privateToken) return { kind: 'private_token', secret: privateToken };
  if (typeof accessToken === 'string' && accessToken) return { kind: 'bearer', secret: accessToken };
  const session = readCookie(req.headers.cookie, SESSION_COOKIE);
  return session ? { kind: 'session', secret: session } : null;
}

export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return null;
}
