import { Router, type RequestHandler } from 'express';
import { lastEventId, newestBlobEventAt } from '../../geo/event-log.js';
import type { GeoRuntime } from '../../geo/runtime.js';
import type { SiteContext } from '../../site-context.js';
import type { Route } from '../routes.js';
import { createPrimaryProxy, forwardWrites } from './forward-writes.js';
import { geoHeaders } from './headers.js';
import { geoNodeRoutes } from './nodes.js';
import { createReadRouting, type ReadRouting } from './read-routing.js';
import { requireReady } from './require-ready.js';
import { geoSiteRouter } from './site.js';
import { geoFailoverRouter } from './failover.js';
import { geoLocalOpsRouter } from './local-ops.js';
import { holdWritesForReplicas } from './sync-wait.js';
import { primaryWriteGate } from './write-gate.js';

/** What a site mounts for Geo (server.ts), by its role. */
export interface GeoHttp {
  /** Whether the site serves requests yet: the readiness probe's answer. */
  ready(): boolean;
  /**
   * Before body parsing (a forwarded write streams its raw body): the answering node's header,
   * and on a secondary the not-ready 503 and write forwarding.
   */
  readonly early: RequestHandler[];
  /** /api/v4/geo: the site-to-site API the primary serves; empty on a secondary. */
  readonly apiRouter: Router;
  /** /api/v4/geo_nodes: the admin API, on every site. */
  readonly nodeRoutes: readonly Route[];
  /** On a secondary, where blob reads (git, LFS, uploads, artifacts) are served; null on the primary, which serves them all. */
  readonly reads: ReadRouting | null;
}

/** Geo's HTTP side, built from the site's Geo runtime. */
export function geoHttp(ctx: SiteContext, geo: GeoRuntime): GeoHttp {
  if (geo.role === 'primary') {
    return {
      ready: () => geo.ready(),
      early: [
        geoHeaders(() => ctx.nodeName, { position: () => lastEventId(ctx.db), written: () => geo.events.written() }),
        primaryWriteGate(ctx.fence, () => geo.ready()),
        ...(geo.replicas.enabled
          ? [
              holdWritesForReplicas({
                position: () => lastEventId(ctx.db),
                blobsAt: (after, through) => newestBlobEventAt(ctx.db, after, through),
                notify: () => geo.events.written(),
                wait: (eventId, blobsAt) => geo.replicas.waitFor(eventId, blobsAt),
              }),
            ]
          : []),
      ],
      apiRouter: Router().use(geoFailoverRouter(ctx, geo)).use(geoLocalOpsRouter(ctx, geo)).use(geoSiteRouter(ctx, geo.events, geo.replicas)),
      nodeRoutes: geoNodeRoutes(geo, null),
      reads: null,
    };
  }
  const proxy = createPrimaryProxy({ primaryUrl: geo.primaryUrl, nodeName: () => ctx.nodeName });
  return {
    ready: () => geo.ready(),
    early: [
      geoHeaders(() => ctx.nodeName, null),
      requireReady(() => geo.ready()),
      forwardWrites({ proxy, waiter: geo.cursor, waitMs: ctx.config.geo.readYourWritesMs }),
    ],
    apiRouter: Router().use(geoFailoverRouter(ctx, geo)).use(geoLocalOpsRouter(ctx, geo)),
    nodeRoutes: geoNodeRoutes(geo, geo.promote),
    reads: createReadRouting(ctx, proxy),
  };
}
