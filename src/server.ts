import express, { Router } from 'express';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { openDatabase, type Db } from './db/connection.js';
import { migrate } from './db/migrate.js';
import { createAppServer } from './api/app-server.js';
import { authenticate } from './api/middleware/authenticate.js';
import { errorHandler, unknownRoute } from './api/middleware/error-handler.js';
import { parseInput, parseQuery } from './api/middleware/input.js';
import { requestLog } from './api/middleware/request-log.js';
import { apiRoutes } from './api/index.js';
import { geoHttp, type GeoHttp } from './api/geo/index.js';
import { projectAvatarRouter, projectUploadsWebRouter } from './api/projects/index.js';
import { gitHttpRouter, gitLfsRouter } from './api/repository/index.js';
import { mountRoutes } from './api/routes.js';
import { probesRouter } from './api/site/index.js';
import { avatarRouter, signInRouter } from './api/users/index.js';
import './api/request-context.js';
import { createLogger } from './observability/logger.js';
import { createSiteMetrics } from './observability/metrics.js';
import { geoNodeFigures } from './observability/geo-gauges.js';
import { registerSiteGauges } from './observability/site-gauges.js';
import { ensureRoot } from './services/users/ensure-root.js';
import { fillMd5Fingerprints } from './services/users/ssh-keys.js';
import { ProjectImportWorker } from './services/projects/import.js';
import { HookQueue } from './services/hooks/queue.js';
import { createGeoRuntime, type GeoRuntime } from './geo/runtime.js';
import { startSchedule } from './jobs/schedule.js';
import type { SiteContext } from './site-context.js';
import { databasePath, tmpDir } from './storage/layout.js';
import { readRevision } from './version.js';

export interface Site {
  readonly ctx: SiteContext;
  readonly db: Db;
  readonly geo: GeoRuntime;
  /** Listens on config.host:config.port (0 picks a free port); resolves to the site's base URL. */
  start(): Promise<string>;
  stop(): Promise<void>;
}

/** Builds one site: database migrated, root ensured, express app wired. Nothing listens until start(). */
export async function createSite(config: Config, options: { log?: Logger } = {}): Promise<Site> {
  await mkdir(config.dataDir, { recursive: true });
  const log = options.log ?? createLogger(config.logLevel);
  const db = openDatabase(databasePath(config.dataDir));
  migrate(db);
  const baseUrl = config.externalUrl ?? `http://${config.host}:${config.port}`;
  const ctx: SiteContext = {
    config,
    db,
    log,
    metrics: createSiteMetrics(),
    externalUrl: baseUrl,
    nodeName: config.nodeName ?? baseUrl,
    webhooks: new HookQueue({ role: config.role, db: () => ctx.db, log }),
    imports: new ProjectImportWorker({ role: config.role, db: () => ctx.db, dataDir: config.dataDir, log }),
  };
  // A secondary's users, root included, arrive from the primary.
  if (config.role === 'primary') await ensureRoot(db, config, log);
  if (config.role === 'primary') fillMd5Fingerprints(db);
  const revision = await readRevision();
  const geo = createGeoRuntime(ctx, revision);
  ctx.metrics.geoStatus.observe(geoNodeFigures(ctx, geo));
  registerSiteGauges(ctx.metrics.registry, { dataDir: config.dataDir, db: () => ctx.db, isPrimary: () => config.role === 'primary' });
  if (config.role === 'primary' && !config.geoSecret) log.warn('GEOFORGE_GEO_SECRET is not set: secondary sites cannot connect to this primary');
  const app = buildApp(ctx, geoHttp(ctx, geo), revision);

  let server: Server | null = null;
  let stopJobs: (() => Promise<void>) | null = null;
  return {
    ctx,
    get db() {
      return ctx.db;
    },
    geo,
    start: () =>
      new Promise((resolve, reject) => {
        const listening = createAppServer(app).listen(config.port, config.host, () => {
          const { port } = listening.address() as AddressInfo;
          ctx.externalUrl = config.externalUrl ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
          ctx.nodeName = config.nodeName ?? ctx.externalUrl;
          geo.start();
          ctx.webhooks.start();
          ctx.imports.start();
          stopJobs = startSchedule(ctx, geo);
          log.info({ url: ctx.externalUrl, role: config.role, node: ctx.nodeName }, 'geoforge listening');
          resolve(ctx.externalUrl);
        });
        listening.once('error', reject);
        listening.keepAliveTimeout = 65_000;
        // Node's 5-minute default would cut a large push or LFS upload mid-body; git's own
        // streaming timeout (an hour) bounds those, and headers still must arrive within a minute.
        listening.requestTimeout = 60 * 60_000;
        server = listening;
      }),
    stop: async () => {
      const listening = server;
      server = null;
      if (listening) {
        await stopJobs?.();
        await geo.stop();
        listening.closeAllConnections();
        await new Promise<void>((resolve) => listening.close(() => resolve()));
      }
      // Deliveries in flight are cancelled and stay queued for the next start.
      await ctx.webhooks.stop();
      // Clones in flight are killed and stay `started`, resumed at the next start.
      await ctx.imports.stop();
      if (ctx.db.open) ctx.db.close();
    },
  };
}

function buildApp(ctx: SiteContext, geo: GeoHttp, revision: string): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', parseQuery);
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
  app.use(projectUploadsWebRouter(ctx, input, geo.reads));
  app.use(gitLfsRouter(ctx, geo.reads));
  app.use(gitHttpRouter(ctx, geo.reads));

  app.use(unknownRoute);
  app.use(errorHandler(ctx.log));
  return app;
}
