import { Router } from 'express';
import { AppError, conflict } from '../../errors.js';
import { BLOB_TYPES } from '../../geo/blobs.js';
import type { GeoRuntime } from '../../geo/runtime.js';
import type { SiteContext } from '../../site-context.js';
import { bool, int, oneOf, readParams, required } from '../params.js';
import { sendJson } from '../respond.js';
import { requireLocalCaller } from './failover.js';

/**
 * The operator CLI's calls to its own running site (issue 19, item 4), under /api/v4/geo/local and
 * signed like `geo promote`: the site's live status (`geoforge geo status`), and on a secondary
 * the registry commands (`geo resync`, `geo verify`), which the running process must make so its
 * sync workers wake and no write races theirs.
 */
export function geoLocalOpsRouter(ctx: SiteContext, geo: GeoRuntime): Router {
  const router = Router();
  router.get('/local/status', (req, res) => {
    requireLocalCaller(ctx, req);
    sendJson(res, 200, { role: geo.role, ready: geo.ready(), status: geo.currentStatus() });
  });
  router.post('/local/resync', (req, res) => {
    requireLocalCaller(ctx, req);
    const registry = secondaryRegistry(geo);
    const input = readParams(req.input, { type: oneOf(BLOB_TYPES), id: int({ min: 1 }), all_failed: bool() });
    if (input.all_failed) return sendJson(res, 201, { ids: registry.resyncFailed(input.type) });
    if (!input.type || input.id === undefined) throw new AppError('invalid', 'type and id are required, or all_failed');
    sendJson(res, 201, { ids: [registry.resync(input.type, input.id)] });
  });
  router.post('/local/verify', async (req, res) => {
    requireLocalCaller(ctx, req);
    const registry = secondaryRegistry(geo);
    const input = readParams(req.input, { type: required(oneOf(BLOB_TYPES)), id: required(int({ min: 1 })) });
    sendJson(res, 201, await registry.verify(input.type, input.id));
  });
  return router;
}

function secondaryRegistry(geo: GeoRuntime) {
  if (geo.role !== 'secondary') throw new AppError('forbidden', 'This site is the primary: resync and verify act on a secondary, whose registry lists what it replicates');
  if (!geo.ready()) throw conflict('This secondary has no database yet (it is still copying it from the primary)');
  return geo.registry;
}
