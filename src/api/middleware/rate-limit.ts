import { createHash } from 'node:crypto';
import { readCookie, SESSION_COOKIE } from './authenticate.js';
import type { Request, RequestHandler } from 'express';
import type { ThrottleHit } from '../../cluster/throttle-counters.js';

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

/** The application settings the throttles read (GitLab's names), at each request: an admin changes them at run time. */
export interface ThrottleSettings {
  readonly throttle_authenticated_api_enabled: boolean;
  readonly throttle_authenticated_api_requests_per_period: number;
  readonly throttle_authenticated_api_period_in_seconds: number;
  readonly throttle_unauthenticated_api_enabled: boolean;
  readonly throttle_unauthenticated_api_requests_per_period: number;
  readonly throttle_unauthenticated_api_period_in_seconds: number;
}

/**
 * GitLab's user and IP throttles (Rack::Attack): each token, and each client IP without one, has
 * `requests_per_period` requests per fixed window of `period_in_seconds`, as the application
 * settings say now. Past it the answer is 429 "Retry later" with Retry-After and GitLab's
 * RateLimit-* headers. `count` keeps the counters: in this process, or for the whole site in the
 * supervisor (cluster/throttle-counters.ts), so a token's budget is one whichever worker answers.
 */
export function rateLimit(
  exemptLoopback: boolean,
  settings: () => ThrottleSettings,
  count: (hit: ThrottleHit) => number | Promise<number>,
  now: () => number = Date.now,
): RequestHandler {
  return (req, res, next) => {
    if (EXEMPT_PATH.test(req.path) || (exemptLoopback && isLoopback(req.socket.remoteAddress))) return next();
    const token = credentialKey(req);
    const kind = token ? 'authenticated' : 'unauthenticated';
    const current = settings();
    if (!current[`throttle_${kind}_api_enabled`]) return next();
    const limit = current[`throttle_${kind}_api_requests_per_period`];
    const periodMs = current[`throttle_${kind}_api_period_in_seconds`] * 1000;
    const at = now();
    const window = Math.floor(at / periodMs);
    const key = token ?? `ip:${req.socket.remoteAddress ?? req.ip ?? ''}`;
    const answer = (observed: number) => {
      if (observed <= limit) return next();
      const resetMs = (window + 1) * periodMs;
      const retryAfter = Math.max(1, Math.ceil((resetMs - at) / 1000));
      res.status(429).set({
        'Content-Type': 'text/plain',
        'Retry-After': String(retryAfter),
        'RateLimit-Name': `throttle_${kind}_api`,
        'RateLimit-Limit': String(Math.ceil((limit * 60000) / periodMs)),
        'RateLimit-Observed': String(observed),
        'RateLimit-Remaining': '0',
        'RateLimit-Reset': String(Math.floor(resetMs / 1000)),
        'RateLimit-ResetTime': new Date(resetMs).toUTCString(),
      });
      res.end('Retry later\n');
    };
    const observed = count({ kind, key, window, periodMs });
    if (typeof observed === 'number') answer(observed);
    else observed.then(answer, next);
  };
}
