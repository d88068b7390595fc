import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Site-to-site tokens live a minute: long enough for clock skew, short enough to be useless when
 * leaked. Each names the signing node and the call it is for (method and path), and carries a
 * nonce: the receiving site refuses it for another call and refuses a second use.
 */
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
  /** The one call the token is for: its method (`*` for a git fetch) and its path under /api/v4/geo. */
  readonly method: string;
  readonly path: string;
  /** The path is a prefix: a git fetch's several requests to one repository (info/refs, upload-pack). */
  readonly prefix: boolean;
  /** Random: a single-call token used twice is a replay. */
  readonly nonce: string;
}

/**
 * What a token is for. A single call binds method and exact path and is good once; a git fetch
 * makes several requests with one header, so its token binds the repository's path prefix and may
 * be used for that fetch's requests within its minute (git's fetch paths read only).
 */
export interface GeoScope {
  readonly method: string;
  /** The path under /api/v4/geo, without the query: `/events`, `/git/repository/12.git/`. */
  readonly path: string;
  readonly prefix?: boolean;
}

/** What a signer knows of the fencing epoch (issue 18, item 2); every site-to-site call carries it. */
export interface FencingClaims {
  readonly epoch: number;
  readonly primary: string | null;
}

const NO_EPOCH: FencingClaims = { epoch: 0, primary: null };

const mac = (secret: string, payload: string) => createHmac('sha256', secret).update(payload).digest('base64url');

/** `<base64url claims>.<base64url HMAC-SHA256>`, signed with GEOFORGE_GEO_SECRET. */
export function signGeoToken(secret: string, node: string, scope: GeoScope, now = Date.now(), fencing: FencingClaims = NO_EPOCH): string {
  const iat = Math.floor(now / 1000);
  const claims: GeoClaims = {
    node,
    iat,
    exp: iat + GEO_TOKEN_TTL_SECONDS,
    epoch: fencing.epoch,
    primary: fencing.primary,
    method: scope.method.toUpperCase(),
    path: scope.path,
    prefix: scope.prefix ?? false,
    nonce: randomBytes(16).toString('base64url'),
  };
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${payload}.${mac(secret, payload)}`;
}

/** The call a token is presented with: its method and its path under /api/v4/geo. */
export interface GeoRequest {
  readonly method: string;
  readonly path: string;
}

/** Where a receiver records the nonces of single-call tokens it accepted: a second use is a replay. */
export interface ReplayGuard {
  /** False when `nonce` was already used; records it until `exp` (seconds) otherwise. */
  use(nonce: string, exp: number, now?: number): boolean;
}

/** Whether a token's scope covers the call it came with. */
function covers(claims: GeoClaims, request: GeoRequest): boolean {
  if (claims.prefix) {
    // Only a git fetch's read paths, under the one repository named.
    return claims.path.endsWith('/') && request.path.startsWith(claims.path) && !request.path.slice(claims.path.length).includes('..') && (request.method === 'GET' || request.method === 'POST');
  }
  return claims.method === request.method.toUpperCase() && claims.path === request.path;
}

/**
 * The claims of a valid, unexpired token signed with `secret` for this `request`; null for
 * anything else: another call's token, a token without a scope (from a release before scopes),
 * or a single-call token seen before by `replays`.
 */
export function verifyGeoToken(secret: string, token: string, request: GeoRequest, replays: ReplayGuard | null, now = Date.now()): GeoClaims | null {
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
  if (typeof claims.method !== 'string' || typeof claims.path !== 'string' || typeof claims.nonce !== 'string' || claims.nonce.length < 16) return null;
  if (!covers({ ...claims, prefix: claims.prefix === true }, request)) return null;
  if (claims.prefix !== true && replays && !replays.use(claims.nonce, claims.exp, now)) return null;
  // Tokens of a version before fencing carry no epoch: epoch 0, the first primary's.
  return { ...claims, prefix: claims.prefix === true, epoch: Number.isSafeInteger(claims.epoch) ? claims.epoch : 0, primary: typeof claims.primary === 'string' ? claims.primary : null };
}

export function geoAuthorization(secret: string, node: string, scope: GeoScope, now = Date.now(), fencing: FencingClaims = NO_EPOCH): string {
  return `${GEO_AUTH_SCHEME} ${signGeoToken(secret, node, scope, now, fencing)}`;
}

/** The path under /api/v4/geo of a URL or request path (query dropped); the whole path when it is not under it. */
export function geoPathOf(urlPath: string): string {
  const pathname = urlPath.split('?')[0]!;
  const at = pathname.indexOf('/api/v4/geo/');
  return at < 0 ? pathname : pathname.slice(at + '/api/v4/geo'.length);
}
