import type { IncomingHttpHeaders } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Agent, request, type Dispatcher } from 'undici';
import { sendJson } from '../api/respond.js';
import type { CursorWaiter } from './cursor-waiter.js';

export const EVENT_ID_HEADER = 'x-geoforge-event-id';
export const MIN_EVENT_HEADER = 'x-geoforge-min-event-id';
export const POSITION_COOKIE = '_geoforge_geo_position';
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer', 'host', 'expect']);

const isWrite = (req: Request) => req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS';
/** What a secondary forwards: API writes (not the site-to-site API) and the two sign-in endpoints. */
const isForwardable = (req: Request) =>
  (req.path.startsWith('/api/v4/') && !req.path.startsWith('/api/v4/geo/')) || req.path === '/users/sign_in' || req.path === '/oauth/token';

function positionOf(req: Request): number | null {
  const header = req.headers[MIN_EVENT_HEADER];
  const cookie = /(?:^|;\s*)_geoforge_geo_position=(\d+)/.exec(req.headers.cookie ?? '');
  const raw = typeof header === 'string' ? header : cookie?.[1];
  return raw && /^\d{1,15}$/.test(raw) ? Number(raw) : null;
}

/**
 * A secondary's write path. Writes go to the primary with the caller's credentials; the answer
 * is held until this site has applied the primary's post-commit event, so the caller reads its
 * own write here. A read carrying a position (header or cookie) waits likewise, and goes to the
 * primary if this site cannot catch up in time. When the primary is unreachable a write gets a
 * 503: nothing is queued silently.
 */
export function forwardWrites(options: { primaryUrl: string; nodeName: () => string; waiter: CursorWaiter; waitMs: number }): RequestHandler {
  const dispatcher: Dispatcher = new Agent({ keepAliveTimeout: 30_000 });

  const proxy = async (req: Request, res: Response, waitForWrite: boolean) => {
    res.locals.route = 'forwarded to primary';
    let upstream: Dispatcher.ResponseData;
    try {
      upstream = await request(`${options.primaryUrl}${req.originalUrl}`, {
        method: req.method as Dispatcher.HttpMethod,
        headers: forwardedHeaders(req.headers, options.nodeName()),
        body: isWrite(req) ? req : undefined,
        dispatcher,
        headersTimeout: 120_000,
        bodyTimeout: 120_000,
      });
    } catch (error) {
      sendJson(res, 503, { message: `503 Service Unavailable - the primary site cannot be reached, so this secondary cannot take writes now (${(error as Error).message})` });
      return;
    }
    const eventId = Number(upstream.headers[EVENT_ID_HEADER]);
    if (waitForWrite && Number.isInteger(eventId) && eventId > 0) {
      const reached = await options.waiter.waitFor(eventId, options.waitMs);
      res.setHeader('X-Geoforge-Replication', reached ? 'applied' : 'pending');
      res.append('Set-Cookie', `${POSITION_COOKIE}=${eventId}; Path=/; HttpOnly; SameSite=Lax`);
    }
    res.statusCode = upstream.statusCode;
    // The primary's headers win (X-Geoforge-Node names the site that answered); cookies add up.
    for (const [name, value] of Object.entries(upstream.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name)) continue;
      if (name === 'set-cookie') res.append(name, value);
      else res.setHeader(name, value);
    }
    // A primary that dies mid-answer must not leave the client waiting on a half-sent body.
    upstream.body.once('error', () => res.destroy());
    upstream.body.pipe(res);
  };

  return (req: Request, res: Response, next: NextFunction) => {
    if (!isForwardable(req)) return next();
    if (isWrite(req)) return void proxy(req, res, true).catch(next);
    const position = positionOf(req);
    if (position === null) return next();
    options.waiter.waitFor(position, options.waitMs).then((reached) => (reached ? next() : proxy(req, res, false)), next);
  };
}

function forwardedHeaders(headers: IncomingHttpHeaders, nodeName: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  out['x-geoforge-forwarded-by'] = nodeName;
  return out;
}
