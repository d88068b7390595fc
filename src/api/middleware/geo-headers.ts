import type { RequestHandler } from 'express';
import { EVENT_ID_HEADER } from '../../geo/forward-writes.js';

/**
 * Names the site that answered every response. On the primary a write's response also carries
 * the post-commit event position, read as the headers go out, so a secondary that forwarded the
 * write knows which event to wait for.
 */
export function geoHeaders(nodeName: () => string, position: (() => number) | null): RequestHandler {
  return (req, res, next) => {
    res.setHeader('X-Geoforge-Node', nodeName());
    if (position && req.method !== 'GET' && req.method !== 'HEAD') {
      const writeHead = res.writeHead;
      res.writeHead = function (this: typeof res, ...args: Parameters<typeof writeHead>) {
        if (!res.headersSent) res.setHeader(EVENT_ID_HEADER, String(position()));
        return writeHead.apply(this, args);
      } as typeof writeHead;
    }
    next();
  };
}
