import express, { Router } from 'express';
import { rateLimit } from './api/middleware/rate-limit.js';
import { securityHeaders } from './api/middleware/security-headers.js';
import { admission } from './api/middleware/admission.js';
import { createSiteLimits, type SiteLimits } from './api/admission/limiter.js';
import { mkdir, stat } from 'node:fs/promises';
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
import type { CoordinatorStatus } from './cluster/etcd/coordinator.js';
import { readRoleState, resolveRole } from './geo/role-state.js';
import { createGeoRuntime, type GeoRuntime } from './geo/runtime.js';
import { startSchedule } from './jobs/schedule.js';
import type { SiteContext } from './site-context.js';
import { databasePath, tmpDir } from './storage/layout.js';
import { readRevision } from './version.js';
import { requireGitVersion } from './git/git-version.js';
import { settleMergeRequestWork } from './services/merge-requests/background.js';
import { housekeepingAnswerer, settleHousekeeping } from './services/repository/housekeeping.js';
import { closeObjectReaders } from './git/object-reader.js';
import { fillMd5Fingerprints } from './services/users/ssh-keys.js';
import { applicationSettings, assertSettingsDefaults, forgetApplicationSettings } from './services/administration/application-settings.js';
import { scheduleMergeabilityChecks } from './services/merge-requests/mergeability.js';
import { mergeAfterPipelines } from './services/merge-requests/merge-when-pipeline-succeeds.js';
import { runRebase } from './services/merge-requests/rebase.js';
import { LocalBus, type SiteBus } from './cluster/bus.js';
import { SiteThrottleCounters, type ThrottleHit } from './cluster/throttle-counters.js';
import { workerMetricsPart } from './observability/metrics.js';

/**
 * Which part of the site this process is (src/cluster/). `all`: the whole site in one process (the
 * embedded mode of tests and `workers: 0`). With workers, a `request` worker serves HTTP on a
 * primary and runs no background work; the `background` worker runs every queue and schedule, and
 * on a secondary (whose agent, cursor and sync live in one process) it serves HTTP as well.
 */
/** How long a process that stops serving after a role switch waits for the one that takes over. */
const HANDOVER_MS = 15_000;

export interface SiteProcess {
  readonly kind: 'all' | 'request' | 'background';
  readonly bus: SiteBus;
  /** In logs and the per-worker metric series. */
  readonly name: string;
}

export interface Site {
  /** The context of the role the site runs with now (a promotion replaces it). */
  readonly ctx: SiteContext;
  readonly db: Db;
  readonly geo: GeoRuntime;
  /**
   * Listens on config.host:config.port (0 picks a free port) when this process serves HTTP, starts
   * the role's work; resolves to the site's base URL. `port`: the one the site's request workers
   * listen on, for a background worker.
   */
  start(port?: number): Promise<string>;
  /** Stops; `drainMs`: how long requests in flight may take to finish (0: cut at once). */
  stop(drainMs?: number): Promise<void>;
}

/** One role of a running site: its context, Geo runtime, request handler and background work. */
interface RoleInstance {
  readonly ctx: SiteContext;
  readonly geo: GeoRuntime;
  readonly handler: Router;
  stopJobs: (() => Promise<void>) | null;
  /** Its handlers on the site bus, removed when the role stops. */
  readonly unsubscribe: Array<() => void>;
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
  readonly process: SiteProcess;
}

/**
 * Builds one site: database migrated, root ensured, express app wired. Nothing listens until start().
 * The role comes from the data directory's persisted role when there is one (geo/role-state.ts),
 * else from the configuration; a promotion or demotion rebuilds the role's part in place.
 */
export async function createSite(config: Config, options: { log?: Logger; process?: SiteProcess } = {}): Promise<Site> {
  const proc = options.process ?? embeddedProcess();
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
  const bus = proc.bus;
  const db = await openTracked(databasePath(config.dataDir));
  // With workers, the first request worker boots alone (src/cluster/supervisor.ts): the others find this done.
  migrate(db);
  const revision = await readRevision();
  let started = false;
  let listening: Server | null = null;
  /** Set while the server closes (see close()). */
  let draining = false;
  /** The port the site listens on, once known (config.port, or the one port 0 picked). */
  let knownPort: number | null = null;
  const metrics = createSiteMetrics();
  const limits = createSiteLimits(effective.admission, metrics.admission);
  const blobs = await openBlobStores(effective, metrics);
  const base: SiteBase = { config: effective, log, metrics, limits, blobs, fence, revision, switchRole: () => switchRole(), process: proc };
  let current = await buildRole(base, effective, db, effective.externalUrl ?? `http://${effective.host}:${effective.port}`, effective.nodeName);
  if (bus.shared) {
    fence.join({
      changed: () => bus.broadcast({ kind: 'fence-changed' }),
      drained: async (timeoutMs) => (await bus.gather<boolean>('fence-drained', timeoutMs)).every(Boolean),
    });
    bus.on('fence-changed', () => fence.reload());
    // The supervisor's etcd coordinator renewed or lost this site's leader lease (src/cluster/etcd/).
    bus.on('coordinator-lease', (message) => fence.holdLease(message.until as number, message.status as CoordinatorStatus | null));
    bus.answer('fence-drained', (timeoutMs) => fence.drainedHere(timeoutMs as number));
    bus.on('role-switch', () => void switchRoleHere('elsewhere').catch((error: unknown) => log.error({ err: error }, 'geo: the role switch another worker asked for failed')));
    // A request worker idles on a secondary (the background worker serves it): it holds nothing back.
    bus.answer('ready', () => (proc.kind === 'request' && current.geo.role === 'secondary') || current.geo.ready());
    bus.answer('metrics', () => workerMetricsPart(base.metrics.registry, proc.name));
    // Whether this process listens for the role it runs now (a role switch hands the port over).
    bus.answer('serving', () => listening !== null && serves(current));
  }
  // Once per site, not per role: the gauges read whichever role runs now.
  registerSiteGauges(base.metrics.registry, { dataDir: effective.dataDir, db: () => current.ctx.db, isPrimary: () => current.ctx.config.role === 'primary' });

  /** Whether this process answers HTTP for a role (see SiteProcess). */
  const serves = (role: RoleInstance) => proc.kind === 'all' || (proc.kind === 'request') === (role.ctx.config.role === 'primary');
  const startRole = (role: RoleInstance) => {
    // A secondary's agent, cursor and syncs live in the background worker, which serves it alone.
    if (proc.kind === 'request' && role.geo.role === 'secondary') return;
    role.geo.start();
    if (!role.ctx.runsBackground) return;
    role.ctx.webhooks.start();
    role.ctx.imports.start();
    role.ctx.mirrors.start();
    role.stopJobs = startSchedule(role.ctx, role.geo);
  };
  const stopRole = async (role: RoleInstance) => {
    for (const unsubscribe of role.unsubscribe) unsubscribe();
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
  /** Switches this process to the role the fence records; with workers, the others were told (switchRole). */
  const switchRoleHere = (asked: 'here' | 'elsewhere'): Promise<void> => {
    const next = switching.then(async () => {
      fence.reload();
      const state = fence.current;
      const old = current;
      // Told by the worker that switched: nothing to do when this one already runs that role (it switched too, or it idles).
      if (asked === 'elsewhere' && old.ctx.config.role === state.role && old.ctx.config.primaryUrl === (state.role === 'secondary' ? state.primaryUrl : effective.primaryUrl)) return;
      await stopRole(old);
      const roleConfig: Config = Object.freeze({ ...effective, role: state.role, primaryUrl: state.role === 'secondary' ? state.primaryUrl : effective.primaryUrl });
      // With workers, another process may have swapped the file (a secondary's bootstrap): open it again.
      const db = bus.shared ? await reopenIfSwapped(old.ctx.db, databasePath(effective.dataDir)) : old.ctx.db;
      current = await buildRole(base, roleConfig, db, old.ctx.externalUrl, old.ctx.nodeName);
      if (started) {
        await listenOrClose();
        startRole(current);
      }
      log.info({ role: roleConfig.role, primary: roleConfig.primaryUrl, epoch: fence.epoch }, 'geo: the site switched role');
    });
    switching = next.catch(() => undefined);
    return next;
  };
  // Every worker switches: none keeps serving the old role.
  const switchRole = async (): Promise<void> => {
    bus.broadcast({ kind: 'role-switch' });
    await switchRoleHere('here');
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', parseQuery);
  app.use(securityHeaders());
  // A draining server ends each connection after its answer: keep-alive clients (a secondary's
  // long polls) would otherwise hold it open for the whole drain.
  app.use((_req, res, next) => {
    if (draining) res.setHeader('Connection', 'close');
    next();
  });
  // Before authentication: a flood of requests, valid credentials or not, costs a map lookup each.
  const throttles = new SiteThrottleCounters();
  const countThrottle = bus.shared ? (hit: ThrottleHit) => bus.ask<number>('throttle', hit) : (hit: ThrottleHit) => throttles.hit(hit);
  app.use(rateLimit(effective.rateLimit.exemptLoopback, () => applicationSettings(current.ctx.db, current.ctx.config), countThrottle));
  // After the throttle (a throttled request takes no slot), before any work: past its queue a request costs a refusal only.
  app.use(admission(log, limits.api));
  app.use((req, res, next) => current.handler(req, res, next));

  /** The URL the site answers on: known once a process of it listens (the background worker is told the port). */
  const learnUrl = (port: number) => {
    const ctx = current.ctx;
    ctx.externalUrl = effective.externalUrl ?? `http://${effective.host.includes(':') ? `[${effective.host}]` : effective.host}:${port}`;
    ctx.nodeName = effective.nodeName ?? ctx.externalUrl;
  };
  const listen = (): Promise<number> =>
    new Promise((resolve, reject) => {
      draining = false;
      // Port 0 too: in a cluster every worker that listens on 0 shares one port, the first one picked.
      const server = createAppServer(app).listen(effective.port, effective.host, () => {
        resolve((server.address() as AddressInfo).port);
      });
      server.once('error', reject);
      server.keepAliveTimeout = 65_000;
      // Node's 5-minute default would cut a large push or LFS upload mid-body; git's own
      // streaming timeout (an hour) bounds those, and headers still must arrive within a minute.
      server.requestTimeout = 60 * 60_000;
      listening = server;
    });
  const close = async (drainMs: number) => {
    const server = listening;
    listening = null;
    if (!server) return;
    draining = true;
    // New connections go to the other workers; requests in flight may finish within drainMs.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    if (drainMs > 0) await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, drainMs).unref())]);
    server.closeAllConnections();
    await closed;
  };
  /**
   * After a role switch: a request worker stops listening on a secondary, the background worker
   * starts (and the reverse). The one that stops waits until another serves: the port must never
   * close in between, or clients would find it refused for the length of the switch.
   */
  const listenOrClose = async () => {
    if (serves(current) && !listening) knownPort = await listen();
    // The background worker keeps the port it served a secondary on after a promotion: closing
    // it would reset the keep-alive connections clients hold to it (their next request fails).
    else if (!serves(current) && listening && proc.kind === 'request') void handOver();
  };
  /** Not awaited by the switch: the request that caused it (a promotion's answer) must finish on this server first. */
  const handOver = async () => {
    for (let waited = 0; waited < HANDOVER_MS && !(await bus.gather<boolean>('serving')).some((other) => other); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    if (!serves(current)) await close(HANDOVER_MS);
  };

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
    start: async (port?: number) => {
      if (port !== undefined) knownPort = port;
      if (serves(current)) knownPort = await listen();
      if (knownPort !== null) learnUrl(knownPort);
      started = true;
      startRole(current);
      const ctx = current.ctx;
      log.info({ url: ctx.externalUrl, role: ctx.config.role, node: ctx.nodeName, epoch: fence.epoch, git: gitVersion, process: proc.kind }, listening ? 'geoforge listening' : 'geoforge background worker started');
      if (bus.shared) bus.broadcast({ kind: 'worker-up', ...(listening ? { port: knownPort } : {}) });
      return ctx.externalUrl;
    },
    stop: async (drainMs = 0) => {
      await switching;
      if (started) {
        // A drain: the requests in flight finish before the role's work stops under them; the
        // secondaries' long polls are answered at once (they would hold the drain for their 10 s).
        if (current.geo.role === 'primary') current.geo.events.close();
        await close(drainMs);
        await stopRole(current);
      } else {
        await settleMergeRequestWork(current.ctx);
        await settleHousekeeping(current.ctx);
        await current.ctx.webhooks.stop();
        await current.ctx.imports.stop();
        await current.ctx.mirrors.stop();
      }
      started = false;
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

/** The file each database this process opened was, to see whether another process swapped it since. */
const openedFiles = new WeakMap<Db, number>();

async function openTracked(file: string): Promise<Db> {
  const db = openDatabase(file);
  openedFiles.set(db, (await stat(file)).ino);
  return db;
}

/**
 * The site's database as it is on disk now: `db` unless the file was replaced under it (another
 * worker's bootstrap swapped it in). The old handle closes later: the request that switched the
 * role may still be reading it.
 */
async function reopenIfSwapped(db: Db, file: string): Promise<Db> {
  const opened = openedFiles.get(db);
  if (opened === undefined || opened === (await stat(file)).ino) return db;
  setTimeout(() => db.open && db.close(), HANDOVER_MS).unref();
  return openTracked(file);
}

/** The embedded mode: the whole site in this process, and no one else on its bus. */
function embeddedProcess(): SiteProcess {
  return { kind: 'all', bus: new LocalBus(), name: 'site' };
}

/** The part of a site that depends on its role: context, Geo runtime, routes and middleware. */
async function buildRole(base: SiteBase, config: Config, db: Db, externalUrl: string, nodeName: string | null): Promise<RoleInstance> {
  const { log } = base;
  // A fenced primary writes nothing (its last event must stay its last): no resumed imports, no root upkeep.
  const writes = config.role === 'primary' && !base.fence.fenced();
  // Read at each delivery and import: an admin may change it at run time.
  const allowLocal = () => applicationSettings(ctx.db, config).allow_local_requests_from_web_hooks_and_services;
  const { bus, kind } = base.process;
  // A request worker's queues only enqueue: each tells the background worker, which runs them.
  const handOff = kind === 'request';
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
      elsewhere: handOff ? () => bus.toBackground({ kind: 'hooks' }) : undefined,
    }),
    imports: new ProjectImportWorker({
      role: writes ? 'primary' : 'secondary',
      db: () => ctx.db,
      dataDir: config.dataDir,
      log,
      allowLocalRequests: allowLocal,
      elsewhere: handOff ? (projectId) => bus.toBackground({ kind: 'import', projectId }) : undefined,
    }),
    mirrors: new RemoteMirrorWorker({
      role: writes ? 'primary' : 'secondary',
      db: () => ctx.db,
      dataDir: config.dataDir,
      log,
      retry: { baseMs: config.remoteMirrorRetryBaseMs, capMs: config.remoteMirrorRetryBaseMs * 64 },
      allowLocalRequests: allowLocal,
      elsewhere: handOff ? () => bus.toBackground({ kind: 'mirrors' }) : undefined,
    }),
    fence: base.fence,
    switchRole: base.switchRole,
    bus,
    runsBackground: kind !== 'request',
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
  return { ctx, geo, handler: buildHandler(ctx, geoHttp(ctx, geo), base.revision), stopJobs: null, unsubscribe: listenOnBus(ctx, geo) };
}

/** What this role hears from the site's other processes: work handed over, and changes to their memory. */
function listenOnBus(ctx: SiteContext, geo: GeoRuntime): Array<() => void> {
  const { bus } = ctx;
  const unsubscribe = [bus.on('settings-changed', () => forgetApplicationSettings(ctx.db))];
  if (ctx.runsBackground) {
    unsubscribe.push(
      bus.on('mergeability-check', (message) => scheduleMergeabilityChecks(ctx, message.ids as number[])),
      bus.on('import', (message) => ctx.imports.schedule(message.projectId as number)),
      bus.on('mirrors', () => ctx.mirrors.wake()),
      bus.on('hooks', () => ctx.webhooks.wake()),
      bus.on('rebase', (message) => runRebase(ctx, message.mergeRequestId as number, message.userId as number)),
      bus.on('pipeline-merges', (message) => mergeAfterPipelines(ctx, message.ids as number[])),
      bus.answer('housekeeping', housekeepingAnswerer(ctx)),
    );
  }
  if (geo.role === 'primary') {
    unsubscribe.push(
      bus.on('geo-events', () => geo.events.notify()),
      bus.on('replica-applied', (message) => geo.replicas.applied(message.node as string, message.eventId as number, message.blobsPendingSince as number | null | undefined)),
      bus.on('replica-timeout', (message) => geo.replicas.recordTimeout({ at: message.at as number, resumeAt: message.resumeAt as number })),
    );
  }
  return unsubscribe;
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
