import { Router, type Request, type Response } from 'express';
import { AppError } from '../../errors.js';
import type { EpochInfo } from '../../geo/agent/primary-client.js';
import { readCursor } from '../../geo/agent/applier.js';
import { lastEventId } from '../../geo/event-log.js';
import { latestPromotion } from '../../geo/promote.js';
import { demoteToSecondary, followPrimary } from '../../geo/repoint.js';
import type { GeoRuntime } from '../../geo/runtime.js';
import type { SiteContext } from '../../site-context.js';
import { bool, int, readParams, required, str } from '../params.js';
import { sendJson } from '../respond.js';
import { requireGeoCaller } from './caller.js';

/** What a site says of itself to another (GET /api/v4/geo/epoch). */
export function epochInfo(ctx: SiteContext, geo: GeoRuntime): EpochInfo {
  const ready = geo.ready() || geo.role === 'primary';
  const promotion = ready ? latestPromotion(ctx.db) : null;
  return {
    role: geo.role,
    url: ctx.externalUrl,
    node: ctx.nodeName,
    epoch: ctx.fence.epoch,
    epoch_primary_url: ctx.fence.epochPrimaryUrl ?? ctx.externalUrl,
    own_epoch: geo.role === 'primary' ? ctx.fence.ownEpoch : null,
    fenced: ctx.fence.fenced(),
    last_event_id: geo.role === 'primary' ? lastEventId(ctx.db) : ready ? (readCursor(ctx.db)?.lastEventId ?? null) : null,
    promotion: promotion && { epoch: promotion.epoch, from_event_id: promotion.from_event_id, previous_primary_url: promotion.previous_primary_url, node_url: promotion.node_url },
  };
}

/** A call of this site's own CLI: signed with the shared secret under this site's node name. */
export function requireLocalCaller(ctx: SiteContext, req: Request): void {
  const claims = requireGeoCaller(ctx, req);
  if (claims.node !== ctx.nodeName) throw new AppError('forbidden', `site-local commands are signed with this site's node name (${ctx.nodeName})`);
}

/**
 * Failover calls every site answers (issue 18), under /api/v4/geo: the epoch exchange, and the
 * commands of this site's own CLI (promote streams its progress as JSON lines, then the report).
 * `geoforge geo promote` talks to the running site rather than its data directory, because the
 * running process is the one whose role changes, without a restart.
 */
export function geoFailoverRouter(ctx: SiteContext, geo: GeoRuntime): Router {
  const router = Router();
  router.get('/epoch', (req, res) => {
    requireGeoCaller(ctx, req);
    sendJson(res, 200, epochInfo(ctx, geo));
  });
  router.post('/local/promote', async (req, res) => {
    requireLocalCaller(ctx, req);
    const { force, timeout_ms: timeoutMs, epoch } = readParams(req.input, { force: bool(), timeout_ms: int({ min: 0, max: 3_600_000 }), epoch: int({ min: 1 }) });
    if (geo.role !== 'secondary') throw new AppError('conflict', 'This site is already a primary');
    res.status(200).set({ 'Content-Type': 'application/x-ndjson', 'Cache-Control': 'no-store' });
    res.flushHeaders();
    const line = (value: unknown) => res.write(`${JSON.stringify(value)}\n`);
    try {
      // The etcd coordinator names the epoch it won in etcd (src/cluster/etcd/); the CLI lets the site count on.
      const report = await geo.promote({ force: force ?? false, timeoutMs: timeoutMs ?? 120_000, by: epoch === undefined ? 'cli' : 'etcd coordinator', epoch }, (progress) => line({ progress }));
      line({ result: report });
    } catch (error) {
      line({ error: error instanceof AppError ? error.message : `promotion failed: ${(error as Error).message}` });
      if (!(error instanceof AppError)) ctx.log.error({ err: error }, 'geo: promotion failed');
    }
    res.end();
  });
  // What the etcd coordinator publishes of this site (src/cluster/etcd/coordinator.ts).
  router.get('/local/coordinator-state', (req, res) => {
    requireLocalCaller(ctx, req);
    sendJson(res, 200, {
      ...epochInfo(ctx, geo),
      ready: geo.ready() || geo.role === 'primary',
      primary_ready: geo.role === 'primary' && geo.ready(),
      primary_url: geo.role === 'secondary' ? geo.primaryUrl : null,
      unsynced_blobs: geo.role === 'secondary' && geo.ready() ? geo.unsyncedBlobs() : null,
      bootstrap_required: ctx.fence.current.bootstrapRequired === true,
      sync_replication: geo.role === 'primary' ? geo.replicas.state() : null,
    });
  });
  router.post('/local/demote', async (req, res) => {
    requireLocalCaller(ctx, req);
    const { primary_url: url } = readParams(req.input, { primary_url: required(str({ max: 2048 })) });
    sendJson(res, 201, await demoteToSecondary(ctx, url));
  });
  router.post('/local/follow', async (req, res) => {
    requireLocalCaller(ctx, req);
    const { primary_url: url } = readParams(req.input, { primary_url: required(str({ max: 2048 })) });
    sendJson(res, 201, await followPrimary(ctx, url));
  });
  return router;
}

/**
 * POST /api/v4/geo/freeze on a primary: a planned promotion pauses writes for a lease (0 lifts it)
 * and learns the final event id once the writes in flight have ended.
 */
export function freezeRoute(ctx: SiteContext) {
  return async (req: Request, res: Response): Promise<void> => {
    const claims = requireGeoCaller(ctx, req);
    const { lease_ms: leaseMs } = readParams(req.input, { lease_ms: required(int({ min: 0, max: 60_000 })) });
    if (leaseMs === 0) {
      ctx.fence.thaw();
      return sendJson(res, 201, { last_event_id: lastEventId(ctx.db), drained: true });
    }
    if (ctx.fence.fenced()) throw new AppError('conflict', `409 Conflict - this primary is fenced: ${ctx.fence.epochPrimaryUrl} is the primary`);
    const drained = await ctx.fence.freeze(leaseMs, claims.node, 10_000);
    sendJson(res, 201, { last_event_id: lastEventId(ctx.db), drained });
  };
}
