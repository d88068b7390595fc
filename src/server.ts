import express, { Router } from 'express';
import { rateLimit } from './api/middleware/rate-limit.js';
import { securityHeaders } from './api/middleware/security-headers.js';
import { admission } from './api/middleware/admission.js';
import { createSiteLimits, type SiteLimits } from './api/admission/limiter.js';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { ConfigError, type Config } from './config.js';
import { StoreUnavailableError } from './storage/blob-store.js';
import { BlobStores } from './storage/blob-stores.js';
import { openDatabase, type Db } from './db/connection.js';
import { migrate } from './db/migrate.js';
import { syncCaptureTriggers } from './db/capture.js';
import { createAppServer } from './api/app-server.js';
import { authenticate } from './api/middleware/authenticate.js';
import { errorHandler, unknownRoute } from './api/middleware/error-handler.js';
import { parseInput, parseQuery } from './api/middleware/input.js';
import { requestLog } from './api/middleware/request-log.js';
import { apiRoutes } from './api/index.js';
import { geoHttp, type GeoHttp } from './api/geo/index.js';
import { projectAvatarRouter, projectUploadsWebRouter } from './api/projects/index.js';
import { groupAvatarRouter } from './api/groups/index.js';
import { gitHttpRouter, gitLfsRouter } from './api/repository/index.js';
import { snippetGitRouter } from './api/snippets/git-http.js';
import { groupWikiGitRouter } from './api/wikis/group-wiki-git-http.js';
import { mountRoutes } from './api/routes.js';
import { probesRouter } from './api/site/index.js';
import { avatarRouter, signInRouter } from './api/users/index.js';
import './api/request-context.js';
import { createLogger } from './observability/logger.js';
import { createSiteMetrics, type SiteMetrics } from './observability/metrics.js';
import { geoNodeFigures } from './observability/geo-gauges.js';
import { registerSiteGauges } from './observability/site-gauges.js';
import { ensureRoot } from './services/users/ensure-root.js';
import { ProjectImportWorker } from './services/projects/import.js';
import { HookQueue } from './services/hooks/queue.js';
import { RemoteMirrorWorker } from './services/remote-mirrors/worker.js';
import { Fence } from './geo/fence.js';
import { readRoleState, resolveRole } from './geo/role-state.js';
import { createGeoRuntime, type GeoRuntime } from './geo/runtime.js';
import { startSchedule } from './jobs/schedule.js';
import type { SiteContext } from './site-context.js';
import { databasePath, tmpDir } from './storage/layout.js';
import { readRevision } from './version.js';
import { requireGitVersion } from './git/git-version.js';
import { settleMergeRequestWork } from './services/merge-requests/background.js';
import { settleHousekeeping } from './services/repository/housekeeping.js';
import { closeObjectReaders } from './git/object-reader.js';
import { fillMd5Fingerprints } from './services/users/ssh-keys.js';
import { applicationSettings, assertSettingsDefaults } from './services/administration/application-settings.js';

export interface Site {
  /** The context of the role the site runs with now (a promotion replaces it). */
  readonly ctx: SiteContext;
  readonly db: Db;
  readonly geo: GeoRuntime;
  /** Listens on config.host:config.port (0 picks a free port); resolves to the site's base URL. */
  start(): Promise<string>;
  stop(): Promise<void>;
}

/** One role of a running site: its context, Geo runtime, request handler and background work. */
interface RoleInstance {
  readonly ctx: SiteContext;
  readonly geo: GeoRuntime;
  readonly handler: Router;
  stopJobs: (() => Promise<void>) | null;
}

/** What outlives a role switch: the database, the log, the metrics, the fence and the listening address. */
interface SiteBase {
  readonly config: Config;
  readonly log: Logger;
  readonly metrics: SiteMetrics;
  readonly limits: SiteLimits;
  readonly blobs: BlobStores;
  readonly fence: Fence;
  readonly revision: string;
  readonly switchRole: () => Promise<void>;
}

/**
 * Builds one site: database migrated, root ensured, express app wired. Nothing listens until start().
 * The role comes from the data directory's persisted role when there is one (geo/role-state.ts),
 * else from the configuration; a promotion or demotion rebuilds the role's part in place.
 */
export async function createSite(config: Config, options: { log?: Logger } = {}): Promise<Site> {
  assertSettingsDefaults(config);
  await mkdir(config.dataDir, { recursive: true });
  const log = options.log ?? createLogger(config.logLevel);
  // Merges run `git merge-tree --write-tree` (git >= 2.38): an older git stops the boot with a
  // message saying so, rather than failing the first merge request.
  const gitVersion = await requireGitVersion().catch((error: unknown) => {
    log.fatal({ err: error }, 'unsupported git');
    throw error;
  });
  const persisted = readRoleState(config.dataDir);
  const effective = resolveRole(config, persisted);
  const fence = new Fence(effective, persisted, log);
  const db = openDatabase(databasePath(config.dataDir));
  migrate(db);
  const revision = await readRevision();
  let listening: Server | null = null;
  const metrics = createSiteMetrics();
  const limits = createSiteLimits(effective.admission, metrics.admission);
  const blobs = await openBlobStores(effective, metrics);
  const base: SiteBase = { config: effective, log, metrics, limits, blobs, fence, revision, switchRole: () => switchRole() };
  let current = await buildRole(base, effective, db, effective.externalUrl ?? `http://${effective.host}:${effective.port}`, effective.nodeName);
  // Once per site, not per role: the gauges read whichever role runs now.
  registerSiteGauges(base.metrics.registry, { dataDir: effective.dataDir, db: () => current.ctx.db, isPrimary: () => current.ctx.config.role === 'primary' });

  const startRole = (role: RoleInstance) => {
    role.geo.start();
    role.ctx.webhooks.start();
    role.ctx.imports.start();
    role.ctx.mirrors.start();
    role.stopJobs = startSchedule(role.ctx, role.geo);
  };
  const stopRole = async (role: RoleInstance) => {
    await role.stopJobs?.();
    role.stopJobs = null;
    await role.geo.stop();
    // Merge request work in the background (checks, merges, rebases) and git gc end before the role does.
    await settleMergeRequestWork(role.ctx);
    await settleHousekeeping(role.ctx);
    // Deliveries in flight are cancelled and stay queued for the next start.
    await role.ctx.webhooks.stop();
    // Clones in flight are killed and stay `started`, resumed at the next start.
    await role.ctx.imports.stop();
    // Pushes in flight are killed and stay `started`, run again at the next start.
    await role.ctx.mirrors.stop();
  };
  // One switch at a time; requests keep flowing to the old role until the new one is ready.
  let switching: Promise<void> = Promise.resolve();
  const switchRole = (): Promise<void> => {
    const next = switching.then(async () => {
      const old = current;
      await stopRole(old);
      const state = fence.current;
      const roleConfig: Config = Object.freeze({ ...effective, role: state.role, primaryUrl: state.role === 'secondary' ? state.primaryUrl : effective.primaryUrl });
      current = await buildRole(base, roleConfig, old.ctx.db, old.ctx.externalUrl, old.ctx.nodeName);
      if (listening) startRole(current);
      log.info({ role: roleConfig.role, primary: roleConfig.primaryUrl, epoch: fence.epoch }, 'geo: the site switched role');
    });
    switching = next.catch(() => undefined);
    return next;
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', parseQuery);
  app.use(securityHeaders());
  // Before authentication: a flood of requests, valid credentials or not, costs a map lookup each.
  app.use(rateLimit(effective.rateLimit.exemptLoopback, () => applicationSettings(current.ctx.db, current.ctx.config)));
  // After the throttle (a throttled request takes no slot), before any work: past its queue a request costs a refusal only.
  app.use(admission(log, limits.api));
  app.use((req, res, next) => current.handler(req, res, next));

  return {
    get ctx() {
      return current.ctx;
    },
    get db() {
      return current.ctx.db;
    },
    get geo() {
      return current.geo;
    },
    start: () =>
      new Promise((resolve, reject) => {
        const server = createAppServer(app).listen(effective.port, effective.host, () => {
          const { port } = server.address() as AddressInfo;
          const ctx = current.ctx;
          ctx.externalUrl = effective.externalUrl ?? `http://${effective.host.includes(':') ? `[${effective.host}]` : effective.host}:${port}`;
          ctx.nodeName = effective.nodeName ?? ctx.externalUrl;
          startRole(current);
          log.info({ url: ctx.externalUrl, role: ctx.config.role, node: ctx.nodeName, epoch: fence.epoch, git: gitVersion }, 'geoforge listening');
          resolve(ctx.externalUrl);
        });
        server.once('error', reject);
        server.keepAliveTimeout = 65_000;
        // Node's 5-minute default would cut a large push or LFS upload mid-body; git's own
        // streaming timeout (an hour) bounds those, and headers still must arrive within a minute.
        server.requestTimeout = 60 * 60_000;
        listening = server;
      }),
    stop: async () => {
      await switching;
      const server = listening;
      listening = null;
      if (server) {
        await stopRole(current);
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      } else {
        await settleMergeRequestWork(current.ctx);
        await settleHousekeeping(current.ctx);
        await current.ctx.webhooks.stop();
        await current.ctx.imports.stop();
        await current.ctx.mirrors.stop();
      }
      closeObjectReaders(effective.dataDir);
      blobs.close();
      if (current.ctx.db.open) current.ctx.db.close();
    },
  };
}

/** Each blob kind's store; a configured object store that does not answer, or lacks its bucket, stops the boot (exit 2). */
async function openBlobStores(config: Config, metrics: SiteMetrics): Promise<BlobStores> {
  const blobs = await BlobStores.open(config.dataDir, config.objectStores, metrics.objectStore);
  try {
    await blobs.check();
  } catch (error) {
    blobs.close();
    const store = error instanceof StoreUnavailableError ? config.objectStores[error.kind] : undefined;
    const where = store ? ` (bucket "${store.bucket}" at ${store.endpoint})` : '';
    throw new ConfigError(`objectStores: ${(error as Error).message}${where}`);
  }
  return blobs;
}

/** The part of a site that depends on its role: context, Geo runtime, routes and middleware. */
async function buildRole(base: SiteBase, config: Config, db: Db, externalUrl: string, nodeName: string | null): Promise<RoleInstance> {
  const { log } = base;
  // A fenced primary writes nothing (its last event must stay its last): no resumed imports, no root upkeep.
  const writes = config.role === 'primary' && !base.fence.fenced();
  // Read at each delivery and import: an admin may change it at run time.
  const allowLocal = () => applicationSettings(ctx.db, config).allow_local_requests_from_web_hooks_and_services;
  const ctx: SiteContext = {
    config,
    db,
    log,
    metrics: base.metrics,
    limits: base.limits,
    blobs: base.blobs,
    externalUrl,
    nodeName: nodeName ?? externalUrl,
    get gravatarEnabled() {
      return applicationSettings(ctx.db, config).gravatar_enabled;
    },
    webhooks: new HookQueue({
      role: config.role,
      db: () => ctx.db,
      log,
      allowLocalRequests: allowLocal,
      allowLocalRequestsFromSystemHooks: () => applicationSettings(ctx.db, config).allow_local_requests_from_system_hooks,
    }),
    imports: new ProjectImportWorker({ role: writes ? 'primary' : 'secondary', db: () => ctx.db, dataDir: config.dataDir, log, allowLocalRequests: allowLocal }),
    mirrors: new RemoteMirrorWorker({
      role: writes ? 'primary' : 'secondary',
      db: () => ctx.db,
      dataDir: config.dataDir,
      log,
      retry: { baseMs: config.remoteMirrorRetryBaseMs, capMs: config.remoteMirrorRetryBaseMs * 64 },
      allowLocalRequests: allowLocal,
    }),
    fence: base.fence,
    switchRole: base.switchRole,
  };
  // A secondary's users, root included, arrive from the primary. A promoted site's capture triggers
  // go in first, so whatever ensuring root writes replicates.
  if (config.role === 'primary') syncCaptureTriggers(db, true);
  if (writes) await ensureRoot(db, config, log);
  if (writes) fillMd5Fingerprints(db);
  const geo = createGeoRuntime(ctx, base.revision);
  ctx.metrics.geoStatus.observe(geoNodeFigures(ctx, geo));
  ctx.metrics.geoFailover.observe(() => ({ epoch: ctx.fence.epoch, fenced: ctx.fence.fenced() }));
  if (config.role === 'primary' && !config.geoSecret) log.warn('GEOFORGE_GEO_SECRET is not set: secondary sites cannot connect to this primary');
  return { ctx, geo, handler: buildHandler(ctx, geoHttp(ctx, geo), base.revision), stopJobs: null };
}

function buildHandler(ctx: SiteContext, geo: GeoHttp, revision: string): Router {
  const app = Router();
  app.use(requestLog(ctx));
  app.use(geo.early);

  const input = parseInput(tmpDir(ctx.config.dataDir));
  const api = Router();
  api.use(input);
  api.use('/geo', geo.apiRouter);
  api.use(authenticate(ctx));
  api.use(mountRoutes(ctx, apiRoutes(revision, geo.nodeRoutes, geo.reads)));
  api.use(unknownRoute);
  api.use(errorHandler(ctx.log));
  // The API comes first: it takes nearly every request, so nothing else is matched before it.
  app.use('/api/v4', api);
  app.use(probesRouter(ctx, geo.ready));
  app.use(signInRouter(ctx, input));
  app.use(avatarRouter(ctx, geo.reads));
  app.use(projectAvatarRouter(ctx, geo.reads));
  app.use(groupAvatarRouter(ctx, geo.reads));
  app.use(projectUploadsWebRouter(ctx, input, geo.reads));
  app.use(gitLfsRouter(ctx, geo.reads));
  app.use(snippetGitRouter(ctx, geo.reads));
  app.use(groupWikiGitRouter(ctx, geo.reads));
  app.use(gitHttpRouter(ctx, geo.reads));

  app.use(unknownRoute);
  app.use(errorHandler(ctx.log));
  return app;
}
