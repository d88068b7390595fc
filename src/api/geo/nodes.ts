import type { Request, Response } from 'express';
import { geoNode } from '../../entities/geo-nodes.js';
import { notFound } from '../../errors.js';
import { CLONE_PROTOCOLS, createGeoNode, deleteGeoNode, repairGeoNode, updateGeoNode } from '../../geo/node-admin.js';
import { secondaryNodeStatus, statusOfNode, type StatusSources } from '../../geo/node-statuses.js';
import { getGeoNode, listGeoNodes, type GeoNodeRow } from '../../geo/nodes.js';
import { namespaceIdsOf } from '../../geo/selective-sync.js';
import { FAILURE_KINDS, FAILURE_TYPES, listCurrentNodeFailures } from '../../geo/registry/failures.js';
import type { SiteContext } from '../../site-context.js';
import type { PromoteOptions, PromotionProgress, PromotionReport } from '../../geo/promote.js';
import { badRequest } from '../../errors.js';
import { admin } from '../middleware/guards.js';
import { paged, sendPage } from '../pagination.js';
import { paramsGuard, pathId } from '../middleware/value-guards.js';
import { bool, int, list, oneOf, required, str } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';
import type { Handler, Route } from '../routes.js';

/**
 * Geo nodes (SPEC: Geo nodes; GITLAB-NOTES 2.7), admin only, on every site: a secondary reads its
 * replicated copy of the tables and its writes reach the primary through write forwarding.
 * `status` and `current/failures` are declared before `:id`, which must be an integer (read after
 * `admin`: geo_nodes.rb authorizes in a `before` block). The statuses come from `sources`: the serving site's live figures, or the reports nodes sent.
 */
export function geoNodeRoutes(sources: StatusSources, promote: Promote | null): readonly Route[] {
  return [
    { method: 'post', path: '/geo_nodes/:id/promote', guards: [admin, nodeIdParam, geoPromoteParams], handler: promoteNode(promote) },
    { method: 'get', path: '/geo_nodes', guards: [admin, paged], handler: listNodes },
    { method: 'get', path: '/geo_nodes/status', guards: [admin, paged], handler: listNodeStatuses(sources) },
    { method: 'get', path: '/geo_nodes/current/failures', guards: [admin, geoFailureParams, paged], handler: listFailures },
    { method: 'get', path: '/geo_nodes/:id', guards: [admin, nodeIdParam], handler: showNode },
    { method: 'get', path: '/geo_nodes/:id/status', guards: [admin, nodeIdParam], handler: showNodeStatus(sources) },
    { method: 'post', path: '/geo_nodes', guards: [admin, nodeCreateParams], handler: addNode },
    { method: 'put', path: '/geo_nodes/:id', guards: [admin, nodeIdParam, nodeEditParams], handler: editNode },
    { method: 'delete', path: '/geo_nodes/:id', guards: [admin, nodeIdParam], handler: removeNode },
    { method: 'post', path: '/geo_nodes/:id/repair', guards: [admin, nodeIdParam], handler: repairNode },
  ];
}

/** Settings POST and PUT share; `primary` is chosen at creation only. */
const SETTINGS = {
  name: str({ max: 255 }),
  enabled: bool(),
  files_max_capacity: int(),
  repos_max_capacity: int(),
  clone_protocol: oneOf(CLONE_PROTOCOLS),
  selective_sync_type: str({ max: 20 }),
  selective_sync_namespace_ids: list(int({ min: 1 })),
  // GitLab reads selective_sync_namespace_ids `as: :namespace_ids`; both names are taken.
  namespace_ids: list(int({ min: 1 })),
};

/** The settings with namespace_ids folded into selective_sync_namespace_ids. */
const nodeCreateParams = paramsGuard('nodeCreateParams', { url: required(str({ max: 2048 })), primary: bool(), ...SETTINGS }, selection);
const nodeEditParams = paramsGuard('nodeEditParams', { url: str({ max: 2048 }), ...SETTINGS }, selection);
const geoFailureParams = paramsGuard('geoFailureParams', { type: oneOf(FAILURE_TYPES), failure_type: oneOf(FAILURE_KINDS) });
const nodeIdParam = pathId('id');
const geoPromoteParams = paramsGuard('geoPromoteParams', { force: bool(), timeout_ms: int({ min: 0, max: 3_600_000 }) });

function selection<T extends { selective_sync_namespace_ids?: number[]; namespace_ids?: number[] }>(input: T): Omit<T, 'namespace_ids'> {
  const { namespace_ids: alias, ...rest } = input;
  return { ...rest, selective_sync_namespace_ids: rest.selective_sync_namespace_ids ?? alias };
}

const nodeView = (ctx: SiteContext, req: Request, row: GeoNodeRow) => geoNode(row, view(ctx, req), namespaceIdsOf(ctx.db, [row.id]).get(row.id));

const view = (ctx: SiteContext, req: Request) => ({ externalUrl: ctx.externalUrl, currentNode: servingNode(ctx, req) });

function listNodes(ctx: SiteContext, req: Request, res: Response): void {
  const page = paged.of(req);
  const result = listGeoNodes(ctx.db, page);
  const namespaces = namespaceIdsOf(ctx.db, result.rows.map((row) => row.id));
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => geoNode(row, view(ctx, req), namespaces.get(row.id))), result.total);
}

function listNodeStatuses(sources: StatusSources): Handler {
  return (ctx, req, res) => {
    const page = paged.of(req);
    const result = listGeoNodes(ctx.db, page, { secondaries: true });
    const statuses = result.rows.map((row) => secondaryNodeStatus(row, row.name === ctx.nodeName, sources));
    sendPage(req, res, ctx.externalUrl, page, statuses, result.total);
  };
}

function listFailures(ctx: SiteContext, req: Request, res: Response): void {
  const filters = geoFailureParams.of(req);
  const page = paged.of(req);
  const result = listCurrentNodeFailures(ctx.db, ctx.nodeName, filters, page);
  sendPage(req, res, ctx.externalUrl, page, result.rows, result.total);
}

function showNode(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, nodeView(ctx, req, getGeoNode(ctx.db, nodeIdParam.of(req))));
}

function showNodeStatus(sources: StatusSources): Handler {
  return (ctx, req, res) => {
    const node = getGeoNode(ctx.db, nodeIdParam.of(req));
    const status = statusOfNode(node, node.name === ctx.nodeName, sources);
    if (!status) throw notFound('Status for Geo node');
    sendJson(res, 200, status);
  };
}

function addNode(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 201, nodeView(ctx, req, createGeoNode(ctx.db, nodeCreateParams.of(req))));
}

function editNode(ctx: SiteContext, req: Request, res: Response): void {
  const id = nodeIdParam.of(req);
  sendJson(res, 200, nodeView(ctx, req, updateGeoNode(ctx.db, id, nodeEditParams.of(req), servingNode(ctx, req))));
}

function removeNode(ctx: SiteContext, req: Request, res: Response): void {
  deleteGeoNode(ctx.db, nodeIdParam.of(req), servingNode(ctx, req));
  sendNoContent(res);
}

function repairNode(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 201, nodeView(ctx, req, repairGeoNode(ctx.db, nodeIdParam.of(req))));
}

/** A secondary's promotion (geo/runtime.ts); null on a primary. */
export type Promote = (options: PromoteOptions, progress: (line: PromotionProgress) => void) => Promise<PromotionReport>;

/**
 * POST /geo_nodes/:id/promote (issue 18, item 1; GitLab has only `gitlab-ctl geo promote`): on the
 * secondary named by :id, which is never forwarded to the primary (api/geo/forward-writes.ts).
 * Planned unless `force`; 201 with the report, or 409 with what the site lacks.
 */
function promoteNode(promote: Promote | null): Handler {
  return async (ctx, req, res) => {
    const node = getGeoNode(ctx.db, nodeIdParam.of(req));
    const { force, timeout_ms: timeoutMs } = geoPromoteParams.of(req);
    if (!promote) throw badRequest(node.name === ctx.nodeName ? 'This node is the primary already' : `Promote a secondary on that secondary: ${node.url}`);
    if (node.name !== ctx.nodeName) throw badRequest(`Promote a secondary on that secondary: this site is ${ctx.nodeName}, the node is at ${node.url}`);
    const by = req.actor?.user.username ?? 'unknown';
    sendJson(res, 201, await promote({ force: force ?? false, timeoutMs: timeoutMs ?? 120_000, by }, (line) => ctx.log.info({ ...line }, 'geo promotion progress')));
  };
}

/**
 * The node the caller is using. A secondary forwards writes to the primary naming itself in
 * x-geoforge-forwarded-by (api/geo/forward-writes.ts), so on the primary that node is "current" for
 * the request. The header is not authenticated, which is harmless: it only decides the `current`
 * flag of the answer and which node a delete or rename must leave alone (the primary is always left).
 */
function servingNode(ctx: SiteContext, req: Request): string {
  const forwardedBy = req.headers['x-geoforge-forwarded-by'];
  return ctx.config.role === 'primary' && typeof forwardedBy === 'string' && forwardedBy ? forwardedBy : ctx.nodeName;
}
