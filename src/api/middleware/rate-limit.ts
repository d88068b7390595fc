import { createHash } from 'node:crypto';
import { readCookie, SESSION_COOKIE } from './authenticate.js';
import type { Request, RequestHandler } from 'express';
import type { RateLimitConfig } from '../../config.js';

/** Site-to-site calls and probes are never limited: they are the site's own machinery. */
const EXEMPT_PATH = /^\/(?:api\/v4\/geo\/|-\/(?:health|liveness|readiness|metrics))/;

const isLoopback = (address: string | undefined) =>
  address !== undefined && (address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.'));

/**
 * The credential a request carries, as one opaque key (a digest: raw tokens are never kept), or
 * null for an anonymous request. Whether the credential is valid does not matter here: each token
 * has its own budget, checked before authentication costs anything.
 */
function credentialKey(req: Request): string | null {
  const parts = [
    req.headers['private-token'],
    req.headers['job-token'],
    req.headers.authorization,
    req.query.private_token,
    req.query.access_token,
    req.query.job_token,
    readCookie(req.headers.cookie, SESSION_COOKIE),
  ].filter((part) => typeof part === 'string' && part !== '');
  if (!parts.length) return null;
  return `token:${createHash('sha256').update(parts.join('\n')).digest('base64url')}`;
}

/**
 * GitLab's user and IP throttles (Rack::Attack): each token, and each client IP without one, has
 * `limit` requests per fixed window of `periodSeconds`. Past it the answer is 429 "Retry later"
 * with Retry-After and GitLab's RateLimit-* headers. Counters live in this process only: a window
 * ends, its counters go.
 */
export function rateLimit(config: RateLimitConfig, now: () => number = Date.now): RequestHandler {
  const periodMs = config.periodSeconds * 1000;
  let window = -1;
  let counts = new Map<string, number>();
  return (req, res, next) => {
    if (EXEMPT_PATH.test(req.path) || (config.exemptLoopback && isLoopback(req.socket.remoteAddress))) return next();
    const token = credentialKey(req);
    const limit = token ? config.authenticated : config.unauthenticated;
    if (limit === 0) return next();
    const at = now();
    const current = Math.floor(at / periodMs);
    if (current !== window) {
      window = current;
      counts = new Map();
    }
    const key = token ?? `ip:${req.socket.remoteAddress ?? req.ip ?? ''}`;
    const observed = (counts.get(key) ?? 0) + 1;
    counts.set(key, observed);
    if (observed <= limit) return next();
    const resetMs = (current + 1) * periodMs;
    const retryAfter = Math.max(1, Math.ceil((resetMs - at) / 1000));
    res.status(429).set({
      'Content-Type': 'text/plain',
      'Retry-After': String(retryAfter),
      'RateLimit-Name': token ? 'throttle_authenticated_api' : 'throttle_unauthenticated_api',
      'RateLimit-Limit': String(Math.ceil((limit * 60) / config.periodSeconds)),
      'RateLimit-Observed': String(observed),
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': String(Math.floor(resetMs / 1000)),
      'RateLimit-ResetTime': new Date(resetMs).toUTCString(),
    });
    res.end('Retry later\n');
  };
}
