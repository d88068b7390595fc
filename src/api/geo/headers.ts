import type { RequestHandler } from 'express';
import { EVENT_ID_HEADER } from './forward-writes.js';

/** What the primary adds to a write's response: its post-commit event position, and who to tell once it is out. */
export interface PrimaryWrites {
  position(): number;
  /** Called when a write's response has finished: long-polling secondaries wake up at once. */
  written(): void;
}

/**
 * Names the site that answered every response. On the primary a write's response also carries
 * the post-commit event position, read as the headers go out, so a secondary that forwarded the
 * write knows which event to wait for. One middleware for both: each layer costs every request.
 */
export function geoHeaders(nodeName: () => string, primary: PrimaryWrites | null): RequestHandler {
  return (req, res, next) => {
    res.setHeader('X-Geoforge-Node', nodeName());
    if (primary && req.method !== 'GET' && req.method !== 'HEAD') {
      const writeHead = res.writeHead;
      res.writeHead = function (this: typeof res, ...args: Parameters<typeof writeHead>) {
        if (!res.headersSent) res.setHeader(EVENT_ID_HEADER, String(primary.position()));
        return writeHead.apply(this, args);
      } as typeof writeHead;
      res.on('finish', primary.written);
    }
    next();
  };
}
