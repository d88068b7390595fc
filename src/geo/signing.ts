import { createHmac, timingSafeEqual } from 'node:crypto';

/** Site-to-site tokens live a minute: long enough for clock skew, short enough to be useless when leaked. */
export const GEO_TOKEN_TTL_SECONDS = 60;
export const GEO_AUTH_SCHEME = 'GL-Geo';

export interface GeoClaims {
  /** The node that signs the call. */
  readonly node: string;
  readonly iat: number;
  readonly exp: number;
}

const mac = (secret: string, payload: string) => createHmac('sha256', secret).update(payload).digest('base64url');

/** `<base64url claims>.<base64url HMAC-SHA256>`, signed with GEOFORGE_GEO_SECRET. */
export function signGeoToken(secret: string, node: string, now = Date.now()): string {
  const iat = Math.floor(now / 1000);
  const payload = Buffer.from(JSON.stringify({ node, iat, exp: iat + GEO_TOKEN_TTL_SECONDS } satisfies GeoClaims)).toString('base64url');
  return `${payload}.${mac(secret, payload)}`;
}

/** The claims of a valid, unexpired token signed with `secret`; null for anything else. */
export function verifyGeoToken(secret: string, token: string, now = Date.now()): GeoClaims | null {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return null;
  const expected = Buffer.from(mac(secret, payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  let claims: GeoClaims;
  try {
    claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as GeoClaims;
  } catch {
    return null;
  }
  const seconds = now / 1000;
  if (typeof claims.node !== 'string' || typeof claims.exp !== 'number' || typeof claims.iat !== 'number') return null;
  if (claims.exp < seconds || claims.iat > seconds + GEO_TOKEN_TTL_SECONDS) return null;
  return claims;
}

export function geoAuthorization(secret: string, node: string, now = Date.now()): string {
  return `${GEO_AUTH_SCHEME} ${signGeoToken(secret, node, now)}`;
}
