import type { IncomingHttpHeaders } from 'node:http';
import { pipeline } from 'node:stream';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { Agent, request, type Dispatcher } from 'undici';
import type { CursorWaiter } from '../../geo/cursor-waiter.js';
import { sendJson } from '../respond.js';

export const EVENT_ID_HEADER = 'x-geoforge-event-id';
export const MIN_EVENT_HEADER = 'x-geoforge-min-event-id';
export const POSITION_COOKIE = '_geoforge_geo_position';
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer', 'host', 'expect']);

const isWrite = (req: Request) => req.method !== 'GET' && req.method !== 'HEAD' && req.method !== 'OPTIONS';
/** What a secondary forwards: API writes (not the site-to-site API) and the two sign-in endpoints. */
const isForwardable = (req: Request) =>
  (req.path.startsWith('/api/v4/') && !req.path.startsWith('/api/v4/geo/') && !PROMOTE.test(req.path)) || req.path === '/users/sign_in' || req.path === '/oauth/token';
/** The promotion of a secondary is answered by that secondary (api/geo/nodes.ts). */
const PROMOTE = /^\/api\/v4\/geo_nodes\/[^/]+\/promote$/;

function positionOf(req: Request): number | null {
  const header = req.headers[MIN_EVENT_HEADER];
  const cookie = /(?:^|;\s*)_geoforge_geo_position=(\d+)/.exec(req.headers.cookie ?? '');
  const raw = typeof header === 'string' ? header : cookie?.[1];
  return raw && /^\d{1,15}$/.test(raw) ? Number(raw) : null;
}

/** How to proxy one request: a body already read from the request, what to say when the primary is down, work before the answer goes out. */
export interface ProxyOptions {
  /** The request body when the handler has read it already; otherwise a write's body is streamed from the request. */
  body?: Buffer;
  /** The 503 message when the primary cannot be reached. */
  unreachable: string;
  /** Runs once the primary's answer has arrived, before it is sent on (its headers are set after, so they win). */
  beforeAnswer?: (upstream: Dispatcher.ResponseData) => Promise<void>;
}

export type PrimaryProxy = (req: Request, res: Response, options: ProxyOptions) => Promise<void>;

/**
 * A secondary's one way to have the primary answer a request: the same method, path and
 * headers (the caller's own credentials among them), the body streamed both ways, the primary's
 * status and headers passed back (X-Geoforge-Node then names the primary as the site that answered).
 */
export function createPrimaryProxy(options: { primaryUrl: string; nodeName: () => string }): PrimaryProxy {
  const dispatcher: Dispatcher = new Agent({ keepAliveTimeout: 30_000 });
  return async (req, res, proxy) => {
    res.locals.route = 'forwarded to primary';
    let upstream: Dispatcher.ResponseData;
    try {
      upstream = await request(`${options.primaryUrl}${req.originalUrl}`, {
        method: req.method as Dispatcher.HttpMethod,
        headers: forwardedHeaders(req.headers, options.nodeName()),
        body: proxy.body ?? (isWrite(req) ? req : undefined),
        dispatcher,
        headersTimeout: 120_000,
        bodyTimeout: 120_000,
      });
    } catch (error) {
      sendJson(res, 503, { message: `503 Service Unavailable - ${proxy.unreachable} (${(error as Error).message})` });
      return;
    }
    await proxy.beforeAnswer?.(upstream);
    res.statusCode = upstream.statusCode;
    // The primary's headers win; cookies add up.
    for (const [name, value] of Object.entries(upstream.headers)) {
      if (value === undefined || HOP_BY_HOP.has(name)) continue;
      if (name === 'set-cookie') res.append(name, value);
      else res.setHeader(name, value);
    }
    // Either side breaking off ends the other: a primary that dies mid-answer must not leave the
    // client waiting on a half-sent body, and a client gone mid-clone must not keep the primary's
    // answer streaming. Both are already torn down by then, so the error needs no other handling.
    pipeline(upstream.body, res, () => undefined);
  };
}

/**
 * A secondary's write path. Writes go to the primary with the caller's credentials; the answer
 * is held until this site has applied the primary's post-commit event, so the caller reads its
 * own write here. A read carrying a position (header or cookie) waits likewise, and goes to the
 * primary if this site cannot catch up in time. When the primary is unreachable a write gets a
 * 503: nothing is queued silently.
 */
export function forwardWrites(options: { proxy: PrimaryProxy; waiter: CursorWaiter; waitMs: number }): RequestHandler {
  const unreachable = 'the primary site cannot be reached, so this secondary cannot take writes now';
  const waitForWrite = (res: Response) => async (upstream: Dispatcher.ResponseData) => {
    const eventId = Number(upstream.headers[EVENT_ID_HEADER]);
    if (!Number.isInteger(eventId) || eventId <= 0) return;
    const reached = await options.waiter.waitFor(eventId, options.waitMs);
    res.setHeader('X-Geoforge-Replication', reached ? 'applied' : 'pending');
    res.append('Set-Cookie', `${POSITION_COOKIE}=${eventId}; Path=/; HttpOnly; SameSite=Lax`);
  };

  return (req: Request, res: Response, next: NextFunction) => {
    if (!isForwardable(req)) return next();
    if (isWrite(req)) return void options.proxy(req, res, { unreachable, beforeAnswer: waitForWrite(res) }).catch(next);
    const position = positionOf(req);
    if (position === null) return next();
    const behind = 'the primary site cannot be reached, and this secondary has not caught up with your last write yet';
    options.waiter.waitFor(position, options.waitMs).then((reached) => (reached ? next() : options.proxy(req, res, { unreachable: behind })), next);
  };
}

function forwardedHeaders(headers: IncomingHttpHeaders, nodeName: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  out['x-geoforge-forwarded-by'] = nodeName;
  return out;
}
