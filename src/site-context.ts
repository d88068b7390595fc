import type { Logger } from 'pino';
import type { SiteLimits } from './api/admission/limiter.js';
import type { Config } from './config.js';
import type { SiteBus } from './cluster/bus.js';
import type { Db } from './db/connection.js';
import type { Fence } from './geo/fence.js';
import type { SiteMetrics } from './observability/metrics.js';
import type { BlobStores } from './storage/blob-stores.js';
import type { ProjectImportWorker } from './services/projects/import.js';
import type { HookQueue } from './services/hooks/queue.js';
import type { RemoteMirrorWorker } from './services/remote-mirrors/worker.js';

/** What every router and service of one site shares; two sites in one process never share one. */
export interface SiteContext {
  readonly config: Config;
  /** The open database; a secondary swaps it when it bootstraps from a snapshot. */
  db: Db;
  readonly log: Logger;
  readonly metrics: SiteMetrics;
  /** Admission control of this worker: the API's slots and each git operation kind's (api/admission). */
  readonly limits: SiteLimits;
  /** Where LFS objects, uploads and job artifacts are kept: the local disk, or an object store per kind. */
  readonly blobs: BlobStores;
  /** Base of every absolute URL; known once the site listens (port 0 in tests). */
  externalUrl: string;
  /** The application setting gravatar_enabled, read at each use (entities take it with externalUrl). */
  readonly gravatarEnabled: boolean;
  /** This site's Geo node name (GEOFORGE_NODE_NAME, else the external URL); known once the site listens. */
  nodeName: string;
  /** Webhook deliveries: the one way events leave the site (services/hooks/fire.ts); idle on a secondary. */
  readonly webhooks: HookQueue;
  /** Fork and import clones, run in this process on the primary (services/projects/import.ts); idle on a secondary. */
  readonly imports: ProjectImportWorker;
  /** Push mirror updates, run in this process on the primary (services/remote-mirrors/worker.ts); idle on a secondary. */
  readonly mirrors: RemoteMirrorWorker;
  /** The fencing epoch and the persisted role; shared by the role instances a promotion or demotion swaps. */
  readonly fence: Fence;
  /** Rebuilds the site for the role its fence now records (promote, demote, follow), without a restart. */
  readonly switchRole: () => Promise<void>;
  /** The other processes of the site (src/cluster/): what changes in this one's memory is told to them. */
  readonly bus: SiteBus;
  /**
   * Whether this process runs the queues and schedules: the background worker, or the whole site in
   * the embedded mode. A request worker only enqueues and hands the work over the bus.
   */
  readonly runsBackground: boolean;
}
