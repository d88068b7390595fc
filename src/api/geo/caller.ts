import type { Request } from 'express';
import { AppError } from '../../errors.js';
import { GEO_AUTH_SCHEME, geoPathOf, verifyGeoToken, type GeoClaims } from '../../geo/signing.js';
import { usedNonces } from '../../geo/used-nonces.js';
import type { SiteContext } from '../../site-context.js';

/**
 * The site that signed the request (`Authorization: GL-Geo <token>`); null when unsigned, expired,
 * signed with another secret, signed for another call, or replayed. Call it once per request.
 */
export function geoCaller(ctx: SiteContext, req: Request): GeoClaims | null {
  const header = req.headers.authorization ?? '';
  const token = header.startsWith(`${GEO_AUTH_SCHEME} `) ? header.slice(GEO_AUTH_SCHEME.length + 1) : null;
  const call = { method: req.method, path: geoPathOf(req.originalUrl) };
  const claims = token && ctx.config.geoSecret ? verifyGeoToken(ctx.config.geoSecret, token, call, usedNonces(ctx.db)) : null;
  // Every signed call carries the signer's fencing epoch: a higher one is learned here (issue 18, item 2).
  if (claims) ctx.fence.learn(claims.epoch, claims.primary, claims.node);
  return claims;
}

/** The signed caller of a site-to-site API call; anything else is a 401. */
export function requireGeoCaller(ctx: SiteContext, req: Request): GeoClaims {
  const claims = geoCaller(ctx, req);
  if (!claims) throw new AppError('unauthorized');
  return claims;
}
