import type { RequestHandler } from 'express';
import type { SyncOutcome } from '../../geo/sync-replication.js';

const SYNC_REPLICATION_HEADER = 'X-Geoforge-Sync-Replication';

/**
 * Synchronous replication on the primary (issue 18, item 4): a write's response is held at its
 * end until enough secondaries have applied the events it wrote (`wait`), then sent, naming the
 * outcome in X-Geoforge-Sync-Replication. The write is committed either way; a write that wrote
 * no event (a refused one) is answered at once. Streamed answers (a git push's report) hold their
 * last chunk, so the client sees the push end only once it is replicated.
 */
export function holdWritesForReplicas(options: {
  position: () => number;
  /** The time of the newest blob event in (after, through], null when the write changed no blob. */
  blobsAt: (after: number, through: number) => number | null;
  notify: () => void;
  wait: (eventId: number, blobsAt: number | null) => Promise<SyncOutcome>;
}): RequestHandler {
  return (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS' || req.path.startsWith('/api/v4/geo/')) return next();
    const before = options.position();
    const end = res.end;
    res.end = function (this: typeof res, ...args: unknown[]) {
      const eventId = options.position();
      if (eventId <= before) return end.apply(this, args as Parameters<typeof end>);
      // Secondaries long-polling for events are woken now, not when the held answer finishes.
      options.notify();
      void options.wait(eventId, options.blobsAt(before, eventId)).then((outcome) => {
        if (!res.headersSent) res.setHeader(SYNC_REPLICATION_HEADER, outcome);
        end.apply(this, args as Parameters<typeof end>);
      });
      return this;
    } as typeof res.end;
    next();
  };
}
