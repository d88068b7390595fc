import { Router } from 'express';
import type { SiteContext } from '../../site-context.js';
import { sendJson } from '../respond.js';

/**
 * Liveness, readiness and Prometheus metrics. `isReady` turns true once the site can serve its data.
 * With workers (src/cluster/), readiness and metrics are the whole site's: the supervisor asks
 * every worker, so the site is ready only when each worker is, and a scrape sums their figures.
 */
export function probesRouter(ctx: SiteContext, isReady: () => boolean): Router {
  const router = Router();
  router.get('/-/liveness', (_req, res) => sendJson(res, 200, { status: 'ok' }));
  router.get('/-/readiness', async (_req, res) => {
    const ready = ctx.bus.shared ? await ctx.bus.ask<boolean>('ready', null).catch(() => false) : isReady();
    sendJson(res, ready ? 200 : 503, { status: ready ? 'ok' : 'starting', role: ctx.config.role });
  });
  router.get('/-/metrics', async (_req, res) => {
    const text = ctx.bus.shared ? await ctx.bus.ask<string>('metrics', null) : await ctx.metrics.registry.metrics();
    res.setHeader('Content-Type', ctx.metrics.registry.contentType);
    res.end(text);
  });
  return router;
}
