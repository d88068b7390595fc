import type { RequestHandler } from 'express';
import type { SiteContext } from '../../site-context.js';
import { routeOf } from './error-handler.js';

let sequence = 0;

/**
 * One log line and one metrics sample per request, keyed by route template (never the raw URL,
 * whose query may hold a token). Secrets never reach the log: only method, route and ids do.
 */
export function requestLog(ctx: SiteContext): RequestHandler {
  const pid = process.pid.toString(36);
  // The line holds method, route, status, timing and ids only: nothing to redact, and the
  // logger's redaction pass would cost more than writing the rest of the line.
  const log = ctx.log.child({}, { redact: [] });
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && /^[\w.-]{1,64}$/.test(incoming) ? incoming : `${pid}-${(++sequence).toString(36)}`;
    res.setHeader('X-Request-Id', requestId);
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = res.locals.route ?? routeOf(req);
      const labels = { method: req.method, route, status: String(res.statusCode) };
      ctx.metrics.httpRequests.inc(labels);
      ctx.metrics.httpDuration.observe(labels, seconds);
      if (log.isLevelEnabled('info')) {
        log.info({
          request_id: requestId,
          method: req.method,
          route,
          status: res.statusCode,
          duration_ms: Math.round(seconds * 1e5) / 100,
          user_id: req.actor?.user.id ?? null,
          sudo_from: req.actor?.sudoFrom?.id ?? undefined,
        });
      }
    });
    next();
  };
}
