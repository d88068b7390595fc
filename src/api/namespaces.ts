import { Router } from 'express';
import { namespace } from '../entities/namespaces.js';
import { getNamespace, listNamespaces } from '../services/namespaces.js';
import type { SiteContext } from '../site-context.js';
import { requireActor } from './middleware/guards.js';
import { readPage, sendPage } from './pagination.js';
import { idOrPath, readParams, str } from './params.js';
import { sendJson } from './respond.js';

/** GET /namespaces and /namespaces/:id (numeric id or URL-encoded full path). */
export function namespacesRouter(ctx: SiteContext): Router {
  const router = Router();
  router.get('/namespaces', (req, res) => {
    const actor = requireActor(req);
    const { search } = readParams(req.input, { search: str() });
    const page = readPage(req.input);
    const result = listNamespaces(ctx.db, actor, search, page);
    sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => namespace(row, ctx)), result.total);
  });
  router.get('/namespaces/:id', (req, res) => {
    requireActor(req);
    sendJson(res, 200, namespace(getNamespace(ctx.db, req.actor, idOrPath(String(req.params.id))), ctx));
  });
  return router;
}
