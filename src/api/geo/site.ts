import { Router } from 'express';
import { rm, stat } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { inTransaction } from '../../db/connection.js';
import { AppError, notFound } from '../../errors.js';
import { eventsAfterJson, logPosition } from '../../geo/event-log.js';
import type { EventWaiter } from '../../geo/event-waiter.js';
import type { ReplicaPositions } from '../../geo/sync-replication.js';
import { findGeoNodeByName, findGeoNodeByUrl, storeNodeStatus, upsertGeoNode } from '../../geo/nodes.js';
import { createSnapshot } from '../../geo/snapshot.js';
import type { SiteContext } from '../../site-context.js';
import { tmpDir } from '../../storage/layout.js';
import { geoGitRouter } from './git-fetch.js';
import { geoTransfersRouter } from './transfers.js';
import { requireGeoCaller } from './caller.js';
import { freezeRoute } from './failover.js';
import { int, readParams, required, str } from '../params.js';
import { downloadStream, sendJson } from '../respond.js';

const MAX_WAIT_MS = 30_000;
/** Fields of a status report the primary reads (pruning, lag): null, or a non-negative number (an integer for ids and times). */
const STATUS_NUMBERS: Record<string, (value: number) => boolean> = {
  last_event_id: Number.isSafeInteger,
  last_event_timestamp: Number.isSafeInteger,
  cursor_last_event_id: Number.isSafeInteger,
  cursor_last_event_timestamp: Number.isSafeInteger,
  db_replication_lag_seconds: Number.isFinite,
};

/**
 * The primary's site-to-site API, mounted at /api/v4/geo: database snapshot, event stream,
 * node registration and status reports, file transfers and git fetch (DESIGN.md, Replication).
 */
export function geoSiteRouter(ctx: SiteContext, waiter: EventWaiter, replicas: ReplicaPositions): Router {
  const router = Router();
  router.use('/git', geoGitRouter(ctx));
  router.use('/transfers', geoTransfersRouter(ctx));
  // A fenced primary serves no history: its secondaries must follow the primary it names.
  const refuseIfFenced = () => {
    if (ctx.fence.fenced()) {
      throw new AppError('conflict', `409 Conflict - this site is no longer the primary: ${ctx.fence.epochPrimaryUrl} is (epoch ${ctx.fence.epoch}); run geoforge geo follow ${ctx.fence.epochPrimaryUrl}`);
    }
  };
  router.post('/freeze', freezeRoute(ctx));
  router.get('/snapshot', async (req, res) => {
    requireGeoCaller(ctx, req);
    refuseIfFenced();
    const { file, lastEventId } = await createSnapshot(ctx.db, tmpDir(ctx.config.dataDir));
    res.on('close', () => void rm(file, { force: true }));
    const { size } = await stat(file);
    res.status(200).set({
      'Content-Type': 'application/vnd.sqlite3',
      'Content-Length': String(size),
      'X-Geo-Last-Event-Id': String(lastEventId),
      'X-Geo-Epoch': String(ctx.fence.ownEpoch),
    });
    await pipeline(downloadStream(file, size), res).catch(() => res.destroy());
  });
  router.get('/events', async (req, res) => {
    const claims = requireGeoCaller(ctx, req);
    refuseIfFenced();
    const { after, wait_ms: waitMs, blobs_pending_since: pending } = readParams(req.input, {
      after: required(int({ min: 0 })),
      wait_ms: int({ min: 0, max: MAX_WAIT_MS }),
      blobs_pending_since: str({ max: 20 }),
    });
    // A secondary asks for the events after the last one it applied: that is its applied position,
    // and with it comes how far its blob syncs are (synchronous replication of pushes and uploads).
    const blobsPendingSince = pending === undefined ? undefined : /^\d{1,15}$/.test(pending) ? Number(pending) : null;
    replicas.applied(claims.node, after, blobsPendingSince);
    // The write waiting for this acknowledgement may be held by another worker of the site.
    ctx.bus.broadcast({ kind: 'replica-applied', node: claims.node, eventId: after, blobsPendingSince });
    await waiter.wait(after, waitMs ?? 0);
    // One read transaction: the page and the position must agree even while another process
    // (the CLI, a prune) writes, or a secondary could take a concurrent prune for a gap.
    const { json, position } = ctx.db.transaction(() => ({ ...eventsAfterJson(ctx.db, after, ctx.config.geo.eventBatchSize), position: logPosition(ctx.db) }))();
    const fencing = `"epoch":${ctx.fence.ownEpoch},"primaryUrl":${JSON.stringify(ctx.externalUrl)},"blobAcks":${replicas.enabled}`;
    const body = `{"lastEventId":${position.lastEventId},"lastEventAt":${position.lastEventAt ?? 'null'},"oldestEventId":${position.oldestEventId ?? 'null'},${fencing},"events":${json}}`;
    res.status(200).set({ 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) }).end(body);
  });
  router.post('/nodes', (req, res) => {
    const claims = requireGeoCaller(ctx, req);
    const { name, url } = readParams(req.input, { name: required(str({ max: 255 })), url: required(str({ max: 2048 })) });
    if (name !== claims.node) throw new AppError('forbidden', 'a node registers only itself');
    if (!/^https?:\/\/[^\s/]+/.test(url)) throw new AppError('invalid', { url: ['must be an http or https URL'] });
    const node = inTransaction(ctx.db, () => {
      const owner = findGeoNodeByUrl(ctx.db, url.replace(/\/+$/, ''));
      if (owner && owner.name !== name) throw new AppError('conflict', `409 Conflict - the URL ${owner.url} belongs to the node named ${owner.name}`);
      return upsertGeoNode(ctx.db, { name, url: url.replace(/\/+$/, ''), primary: false });
    });
    sendJson(res, 201, { id: node.id, name: node.name, url: node.url });
  });
  router.post('/status', (req, res) => {
    const claims = requireGeoCaller(ctx, req);
    const node = findGeoNodeByName(ctx.db, claims.node);
    if (!node) throw notFound('GeoNode');
    const status = req.body as Record<string, unknown>;
    if (typeof status !== 'object' || status === null || Array.isArray(status) || typeof status.healthy !== 'boolean') {
      throw new AppError('bad_request', 'status must be a GeoNodeStatus object');
    }
    // Pruning and the lag shown to admins read these; a report with nonsense there is refused, not stored.
    for (const [field, valid] of Object.entries(STATUS_NUMBERS)) {
      const value = status[field];
      if (value !== undefined && value !== null && !(typeof value === 'number' && valid(value) && value >= 0)) {
        throw new AppError('bad_request', `${field} must be a non-negative number or null`);
      }
    }
    inTransaction(ctx.db, () => storeNodeStatus(ctx.db, node.id, { ...status, geo_node_id: node.id }, Date.now()));
    sendJson(res, 201, { geo_node_id: node.id });
  });
  return router;
}
