import { Router, type Request } from 'express';
import { geoNode } from '../../entities/geo-nodes.js';
import { notFound } from '../../errors.js';
import { CLONE_PROTOCOLS, createGeoNode, deleteGeoNode, repairGeoNode, updateGeoNode } from '../../geo/node-admin.js';
import { secondaryNodeStatus, statusOfNode } from '../../geo/node-statuses.js';
import { getGeoNode, listGeoNodes } from '../../geo/nodes.js';
import type { GeoRuntime } from '../../geo/runtime.js';
import { FAILURE_KINDS, FAILURE_TYPES, listCurrentNodeFailures } from '../../geo/registry/failures.js';
import type { SiteContext } from '../../site-context.js';
import { requireAdmin } from '../middleware/guards.js';
import { readPage, sendPage } from '../pagination.js';
import { bool, int, oneOf, pathInt, readParams, required, str } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';

/**
 * Geo nodes (SPEC: Geo nodes; GITLAB-NOTES 2.7), admin only, on every site: a secondary reads its
 * replicated copy of the tables and its writes reach the primary through write forwarding.
 * `status` and `current/failures` are declared before `:id`, which must be an integer.
 */
export function geoNodesRouter(ctx: SiteContext, geo: GeoRuntime): Router {
  const router = Router();
  const view = (req: Request) => ({ externalUrl: ctx.externalUrl, currentNode: servingNode(ctx, req) });

  router.get('/geo_nodes', (req, res) => {
    requireAdmin(req);
    const page = readPage(req.input);
    const result = listGeoNodes(ctx.db, page);
    sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => geoNode(row, view(req))), result.total);
  });
  router.get('/geo_nodes/status', (req, res) => {
    requireAdmin(req);
    const page = readPage(req.input);
    const result = listGeoNodes(ctx.db, page, { secondaries: true });
    const statuses = result.rows.map((row) => secondaryNodeStatus(row, row.name === ctx.nodeName, geo));
    sendPage(req, res, ctx.externalUrl, page, statuses, result.total);
  });
  router.get('/geo_nodes/current/failures', (req, res) => {
    requireAdmin(req);
    const filters = readParams(req.input, { type: oneOf(FAILURE_TYPES), failure_type: oneOf(FAILURE_KINDS) });
    const page = readPage(req.input);
    const result = listCurrentNodeFailures(ctx.db, ctx.nodeName, filters, page);
    sendPage(req, res, ctx.externalUrl, page, result.rows, result.total);
  });
  router.get('/geo_nodes/:id', (req, res) => {
    requireAdmin(req);
    sendJson(res, 200, geoNode(getGeoNode(ctx.db, pathInt(req.params.id, 'id')), view(req)));
  });
  router.get('/geo_nodes/:id/status', (req, res) => {
    requireAdmin(req);
    const node = getGeoNode(ctx.db, pathInt(req.params.id, 'id'));
    const status = statusOfNode(node, node.name === ctx.nodeName, geo);
    if (!status) throw notFound('Status for Geo node');
    sendJson(res, 200, status);
  });
  router.post('/geo_nodes', (req, res) => {
    requireAdmin(req);
    const input = readParams(req.input, { url: required(str({ max: 2048 })), primary: bool(), ...SETTINGS });
    sendJson(res, 201, geoNode(createGeoNode(ctx.db, input), view(req)));
  });
  router.put('/geo_nodes/:id', (req, res) => {
    requireAdmin(req);
    const id = pathInt(req.params.id, 'id');
    const input = readParams(req.input, { url: str({ max: 2048 }), ...SETTINGS });
    sendJson(res, 200, geoNode(updateGeoNode(ctx.db, id, input, servingNode(ctx, req)), view(req)));
  });
  router.delete('/geo_nodes/:id', (req, res) => {
    requireAdmin(req);
    deleteGeoNode(ctx.db, pathInt(req.params.id, 'id'), servingNode(ctx, req));
    sendNoContent(res);
  });
  router.post('/geo_nodes/:id/repair', (req, res) => {
    requireAdmin(req);
    sendJson(res, 201, geoNode(repairGeoNode(ctx.db, pathInt(req.params.id, 'id')), view(req)));
  });
  return router;
}

/** Settings POST and PUT share; `primary` is chosen at creation only. */
const SETTINGS = {
  name: str({ max: 255 }),
  enabled: bool(),
  files_max_capacity: int(),
  repos_max_capacity: int(),
  clone_protocol: oneOf(CLONE_PROTOCOLS),
};

/**
 * The node the caller is using. A secondary forwards writes to the primary naming itself in
 * x-geoforge-forwarded-by (geo/forward-writes.ts), so on the primary that node is "current" for
 * the request. The header is not authenticated, which is harmless: it only decides the `current`
 * flag of the answer and which node a delete or rename must leave alone (the primary is always left).
 */
function servingNode(ctx: SiteContext, req: Request): string {
  const forwardedBy = req.headers['x-geoforge-forwarded-by'];
  return ctx.config.role === 'primary' && typeof forwardedBy === 'string' && forwardedBy ? forwardedBy : ctx.nodeName;
}
