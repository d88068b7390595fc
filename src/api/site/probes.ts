import { Router } from 'express';
import type { SiteContext } from '../../site-context.js';
import { sendJson } from '../respond.js';

/** Liveness, readiness and Prometheus metrics. `isReady` turns true once the site can serve its data. */
export function probesRouter(ctx: SiteContext, isReady: () => boolean): Router {
  const router = Router();
  router.get('/-/liveness', (_req, res) => sendJson(res, 200, { status: 'ok' }));
  router.get('/-/readiness', (_req, res) => {
    const ready = isReady();
    sendJson(res, ready ? 200 : 503, { status: ready ? 'ok' : 'starting', role: ctx.config.role });
  });
  router.get('/-/metrics', async (_req, res) => {
    const text = await ctx.metrics.registry.metrics();
    res.setHeader('Content-Type', ctx.metrics.registry.contentType);
    res.end(text);
  });
  return router;
}
