import type { RequestHandler } from 'express';
import type { Fence } from '../../geo/fence.js';
import { sendJson } from '../respond.js';

/** Site-to-site calls a frozen or fenced primary still answers: a promotion's own calls, and the epoch exchange. */
const ALWAYS = /^\/api\/v4\/geo\/(?:freeze|local\/|epoch)/;

/**
 * A primary's write gate (issue 18, item 2): a primary that knows of a higher epoch answers every
 * write 503 naming the new primary until an operator demotes it; during a planned promotion's
 * freeze, or before its first epoch exchange at start, it answers 503 too. Writes that pass are
 * counted while in flight, so a freeze can wait for them to end before it names the last event.
 */
export function primaryWriteGate(fence: Fence, epochChecked: () => boolean): RequestHandler {
  return (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS' || ALWAYS.test(req.path)) return next();
    const refusal = fence.writeRefusal();
    if (refusal?.kind === 'fenced') {
      const name = refusal.primaryUrl ?? 'another site';
      return sendJson(res, 503, {
        message: `503 Service Unavailable - this site is no longer the primary: ${name} is the primary (epoch ${refusal.epoch}). Writes go to ${name}; demote this site with: geoforge geo demote --primary-url ${name}`,
        primary_url: refusal.primaryUrl,
        epoch: refusal.epoch,
      });
    }
    if (refusal?.kind === 'frozen') {
      return sendJson(res, 503, { message: `503 Service Unavailable - writes are paused: ${refusal.by} is being promoted to primary` });
    }
    if (refusal?.kind === 'no-lease') {
      return sendJson(res, 503, { message: '503 Service Unavailable - this primary does not hold the leader lease in etcd (geoCoordinator): writes are refused until it wins it again, or another site is promoted' });
    }
    if (!epochChecked()) {
      return sendJson(res, 503, { message: '503 Service Unavailable - this primary is checking with the other sites that it was not replaced while it was down' });
    }
    // Which epoch took the write (with X-Geoforge-Node): a history checker tells two writers of one epoch apart.
    res.setHeader('X-Geoforge-Epoch', String(fence.ownEpoch));
    fence.writeStarted();
    res.once('close', () => fence.writeEnded());
    next();
  };
}
