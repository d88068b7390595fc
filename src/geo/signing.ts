import { createHmac, timingSafeEqual } from 'node:crypto';

/** Site-to-site tokens live a minute: long enough for clock skew, short enough to be useless when leaked. */
export const GEO_TOKEN_TTL_SECONDS = 60;
export const GEO_AUTH_SCHEME = 'GL-Geo';

export interface GeoClaims {
  /** The node that signs the call. */
  readonly node: string;
  readonly iat: number;
  readonly exp: number;
  /** The highest fencing epoch the signer knows, and that epoch's primary (null: the signer itself). */
  readonly epoch: number;
  readonly primary: string | null;
}

/** What a signer knows of the fencing epoch (issue 18, item 2); every site-to-site call carries it. */
export interface FencingClaims {
  readonly epoch: number;
  readonly primary: string | null;
}

const NO_EPOCH: FencingClaims = { epoch: 0, primary: null };

const mac = (secret: string, payload: string) => createHmac('sha256', secret).update(payload).digest('base64url');

/** `<base64url claims>.<base64url HMAC-SHA256>`, signed with GEOFORGE_GEO_SECRET. */
export function signGeoToken(secret: string, node: string, now = Date.now(), fencing: FencingClaims = NO_EPOCH): string {
  const iat = Math.floor(now / 1000);
  const claims: GeoClaims = { node, iat, exp: iat + GEO_TOKEN_TTL_SECONDS, epoch: fencing.epoch, primary: fencing.primary };
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
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
  // Tokens of a version before fencing carry no epoch: epoch 0, the first primary's.
  return { ...claims, epoch: Number.isSafeInteger(claims.epoch) ? claims.epoch : 0, primary: typeof claims.primary === 'string' ? claims.primary : null };
}

export function geoAuthorization(secret: string, node: string, now = Date.now(), fencing: FencingClaims = NO_EPOCH): string {
  return `${GEO_AUTH_SCHEME} ${signGeoToken(secret, node, now, fencing)}`;
}
