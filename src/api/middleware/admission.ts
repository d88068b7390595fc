import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { holdSlot } from '../admission/hold.js';
import type { ConcurrencyLimiter } from '../admission/limiter.js';

/**
 * What takes no API slot: the probes (never refused), the site-to-site API (the Geo event
 * stream's long-poll, transfers, git fetch: a slot held while waiting would be a slot lost),
 * and what streams for as long as the client reads or sends, or has a limiter of its own: git
 * smart HTTP (ref advertisements and RPCs, under their kind's limiter), LFS object transfers,
 * repository archives and job artifact downloads.
 */
const EXEMPT = [
  /^\/-\/(?:health|liveness|readiness|metrics)$/,
  /^\/api\/v4\/geo\//,
  /\/(?:git-(?:upload|receive)-pack|info\/refs)$/,
  /\.git\/gitlab-lfs\/objects\/[0-9a-f]{64}(?:\/\d+)?$/,
  /^\/api\/v4\/projects\/[^/]+\/repository\/archive(?:\.[^/]*)?$/,
];
const ARTIFACT_DOWNLOAD = /^\/api\/v4\/projects\/[^/]+\/jobs\/[^/]+\/artifacts$/;

/**
 * Admission control of the API (Workhorse's apiLimit, apiQueueLimit, apiQueueDuration): at most
 * `limit` requests in flight in this worker, the next `queueLimit` wait in arrival order, and
 * past that the answer is 429 at once, or 503 once a request waited the queue timeout.
 */
export function admission(log: Logger, limiter: ConcurrencyLimiter): RequestHandler {
  return (req, res, next) => {
    const path = req.path;
    if (EXEMPT.some((pattern) => pattern.test(path)) || (req.method === 'GET' && ARTIFACT_DOWNLOAD.test(path))) return next();
    holdSlot(log, limiter, req, res, 'json', next);
  };
}
