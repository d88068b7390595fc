import { Router } from 'express';
import type { SiteContext } from '../../site-context.js';
import { versionString } from '../../version.js';
import { requireActor } from '../middleware/guards.js';
import { sendJson } from '../respond.js';

/** GET /version: any signed-in user (GITLAB-NOTES 5). */
export function versionRouter(ctx: SiteContext, revision: string): Router {
  const router = Router();
  router.get('/version', (req, res) => {
    requireActor(req);
    sendJson(res, 200, { version: versionString(ctx.config.edition), revision });
  });
  return router;
}
