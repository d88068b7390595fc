import { syncCaptureTriggers } from '../db/capture.js';
import { forgetApplicationSettings } from '../services/administration/application-settings.js';
import { inTransaction, openDatabase, prepare, type Db } from '../db/connection.js';
import { migrate } from '../db/migrate.js';
import type { SiteContext } from '../site-context.js';
import { databasePath } from '../storage/layout.js';
import { versionString } from '../version.js';
import { GeoAgent } from './agent/agent.js';
import { readCursor } from './agent/applier.js';
import { swapInSnapshot } from './agent/bootstrap.js';
import { PrimaryClient, PrimaryError } from './agent/primary-client.js';
import { CursorWaiter } from './cursor-waiter.js';
import { appendHeartbeat, lastEventId, logPosition, pruneEvents } from './event-log.js';
import { EventWaiter } from './event-waiter.js';
import { fillRepositoryStates, reconcileRepositoryStates } from './fill-repository-states.js';
import { reconcileGroupWikis } from './group-wiki-events.js';
import { findGeoNodeByName, readStoredNodeStatus, upsertGeoNode } from './nodes.js';
import { primarySelfStatus } from './node-statuses.js';
import { createBlobReplication, type BlobReplication } from './sync/blob-replication.js';
import { exchangeEpochs, peerUrls } from './peers.js';
import { withFailover } from './failover-status.js';
import { ReplicaPositions } from './sync-replication.js';
import { isItemSelected, selectiveNodeId } from './selective-sync.js';
import { missingOnPrimaryCount } from './registry/counts.js';
import { promoteSecondary, type PromoteOptions, type PromotionProgress, type PromotionReport } from './promote.js';
import { conflict } from '../errors.js';
import { ageStoredStatus, buildStatus, type GeoNodeStatus } from './status.js';

/** What either role's Geo offers the site: readiness, status, and its own lifecycle. */
interface GeoRuntimeBase {
  /** False on a secondary until it has a database to serve (and while it swaps in a new one). */
  ready(): boolean;
  /** The live status of the site serving the request; null before its node is known. */
  currentStatus(): GeoNodeStatus | null;
  /** The status to show for another node: the last stored report, aged. */
  storedStatus(nodeId: number): GeoNodeStatus | null;
  start(): void;
  stop(): Promise<void>;
}

/** The primary's Geo: the event log secondaries tail, and its upkeep (run from jobs/schedule.ts). */
export interface PrimaryGeo extends GeoRuntimeBase {
  readonly role: 'primary';
  /** The long polls of secondaries wait on it; a finished write wakes them. */
  readonly events: EventWaiter;
  /** Appends a heartbeat event when the log was quiet for a heartbeat interval, so a secondary's lag stays measurable. */
  heartbeat(): void;
  /** Prunes the events every healthy secondary has applied (see pruneLog). */
  pruneEventLog(): number;
  /** Records the refs checksums of repositories that have none yet, which secondaries compare their copies with. */
  fillRepositoryStates(): Promise<void>;
  /** Exchanges fencing epochs with the other nodes (at start, then on a schedule). */
  exchangeEpochs(): Promise<void>;
  /** What each secondary applied: the synchronous-replication wait of writes. */
  readonly replicas: ReplicaPositions;
}

/** A secondary's Geo: the agent applying the primary's events, and the blob replication (its schedules in jobs/schedule.ts). */
export interface SecondaryGeo extends GeoRuntimeBase {
  readonly role: 'secondary';
  /** The primary this site replicates from. */
  readonly primaryUrl: string;
  /** This site's cursor: a forwarded write's answer waits until the write's event is applied here. */
  readonly cursor: CursorWaiter;
  /** Sends this site's status to the primary; a 404 (the node was deleted there) registers it again. */
  reportStatus(): Promise<void>;
  /** Schedules the blobs the registry lacks and reconciles the rest with the replicated database. */
  backfill(): Promise<void>;
  /** Re-verifies a batch of synced copies that are due. */
  reverify(): Promise<void>;
  /**
   * Makes this site the primary (issue 18, item 1): planned, it first waits until it holds all the
   * primary has; forced, it proceeds with what it has. The site then serves as primary, without a restart.
   */
  promote(options: PromoteOptions, progress: (line: PromotionProgress) => void): Promise<PromotionReport>;
  /** The operator's commands on the sync registry (`geoforge geo resync | verify`, issue 19). */
  readonly registry: Pick<BlobReplication, 'resync' | 'resyncFailed' | 'verify'>;
  /** Blobs the replicated database lists that are not synced here (what the etcd coordinator publishes). */
  unsyncedBlobs(): number;
}

/** The Geo side of one site, by role; its HTTP side is built from it in api/geo/index.ts. */
export type GeoRuntime = PrimaryGeo | SecondaryGeo;

export function createGeoRuntime(ctx: SiteContext, revision: string): GeoRuntime {
  return ctx.config.role === 'primary' ? primaryRuntime(ctx, revision) : secondaryRuntime(ctx, revision);
}

function storedStatusOf(ctx: SiteContext, nodeId: number): GeoNodeStatus | null {
  const report = readStoredNodeStatus(ctx.db, nodeId);
  return report ? ageStoredStatus(report.status, report.reportedAt, Date.now(), ctx.config.geo.statusStaleSeconds) : null;
}

function primaryRuntime(ctx: SiteContext, revision: string): PrimaryGeo {
  syncCaptureTriggers(ctx.db, true);
  const events = new EventWaiter(() => lastEventId(ctx.db), () => ctx.bus.broadcast({ kind: 'geo-events' }));
  // Until its first epoch exchange has ended, a primary with peers does not know whether it was
  // replaced while it was down: it is not ready, and writes wait for that (api/geo/write-gate.ts).
  let epochChecked = false;
  const replicas = new ReplicaPositions(ctx.config.geo.syncReplicas, ctx.config.geo.syncTimeoutMs, () => lastEventId(ctx.db), ctx.metrics.geoFailover, (timeout) =>
    ctx.bus.broadcast({ kind: 'replica-timeout', ...timeout }),
  );
  /** Whether this start reconciled the recorded repository states with the disk yet (a crash may have left changes unrecorded). */
  let reconciled = false;
  return {
    role: 'primary',
    events,
    replicas,
    ready: () => epochChecked,
    heartbeat: () => {
      // A fenced or frozen primary appends nothing: its last event must stay its last.
      if (ctx.fence.writeRefusal()) return;
      const { lastEventAt } = logPosition(ctx.db);
      if (lastEventAt !== null && Date.now() - lastEventAt < ctx.config.geo.heartbeatSeconds * 1000) return;
      appendHeartbeat(ctx.db);
      events.written();
    },
    pruneEventLog: () => pruneLog(ctx),
    fillRepositoryStates: async () => {
      if (ctx.fence.writeRefusal()) return;
      const firstRun = !reconciled;
      const written = await fillRepositoryStates(ctx.db, ctx.config.dataDir);
      if (written) ctx.log.info({ job: 'geo-repository-states', written }, 'repository states filled');
      // Once per start: changes a crash kept from their events are recorded now.
      if (firstRun) {
        const recorded = await reconcileRepositoryStates(ctx.db, ctx.config.dataDir);
        reconciled = true;
        if (recorded) ctx.log.warn({ job: 'geo-repository-states', recorded }, 'repository changes recorded that a crash had left unrecorded');
      }
      // Group wikis whose checksum failed, and at the first run every one (as the two above do for projects).
      const groupWikis = await reconcileGroupWikis(ctx.db, ctx.config.dataDir, { all: firstRun });
      if (groupWikis) ctx.log.warn({ job: 'geo-repository-states', group_wikis: groupWikis }, 'group wiki changes recorded that a failed checksum or a crash had left unrecorded');
    },
    currentStatus: () => {
      const node = findGeoNodeByName(ctx.db, ctx.nodeName);
      if (!node) return null;
      const status = primarySelfStatus(ctx.db, node.id, { version: versionString(ctx.config.edition), revision, now: Date.now() });
      return withFailover(status, ctx.db, ctx.fence, { state: replicas.state(), problem: replicas.problem() });
    },
    storedStatus: (nodeId) => storedStatusOf(ctx, nodeId),
    exchangeEpochs: async () => {
      await exchangeEpochs(ctx, 2_000);
    },
    start: () => {
      if (!ctx.fence.fenced()) inTransaction(ctx.db, () => upsertGeoNode(ctx.db, { name: ctx.nodeName, url: ctx.externalUrl, primary: true }));
      if (peerUrls(ctx).length === 0) epochChecked = true;
      else void exchangeEpochs(ctx, 2_000).finally(() => (epochChecked = true));
    },
    stop: async () => {
      replicas.close();
      events.close();
    },
  };
}

/**
 * Prunes events every healthy secondary has applied, keeping the newest `logKeepMin`; events past
 * the retention are pruned regardless, so a dead secondary cannot pin the log.
 */
function pruneLog(ctx: SiteContext): number {
  const now = Date.now();
  const cursors = (prepare(ctx.db, 'SELECT id FROM geo_nodes WHERE "primary" = 0 AND enabled = 1').pluck().all() as number[]).map((nodeId) => {
    const status = storedStatusOf(ctx, nodeId);
    return status && status.healthy ? (status.cursor_last_event_id ?? 0) : 0;
  });
  const throughId = cursors.length ? Math.min(...cursors) : lastEventId(ctx.db);
  return pruneEvents(ctx.db, { throughId, keepMin: ctx.config.geo.logKeepMin, retainSinceMs: now - ctx.config.geo.logRetentionHours * 3_600_000 });
}

function secondaryRuntime(ctx: SiteContext, revision: string): SecondaryGeo {
  syncCaptureTriggers(ctx.db, false);
  const { primaryUrl, geoSecret } = ctx.config;
  if (!primaryUrl || !geoSecret) throw new Error('a secondary needs GEOFORGE_PRIMARY_URL and GEOFORGE_GEO_SECRET');
  const dbFile = databasePath(ctx.config.dataDir);
  const cursorOf = () => readCursor(ctx.db)?.lastEventId ?? -1;
  const waiter = new CursorWaiter(cursorOf);
  let swapping = false;
  const client = new PrimaryClient(primaryUrl, geoSecret, () => ctx.nodeName, () => ctx.fence.claims(ctx.externalUrl));
  // Nudging the agent re-polls at once, telling the primary what is synced; only a primary waiting for that needs it.
  const blobs = createBlobReplication(ctx, client, () => ready(), () => agent.nudge());
  const agent = new GeoAgent(
    {
      dataDir: ctx.config.dataDir,
      externalUrl: () => ctx.externalUrl,
      log: ctx.log,
      metrics: ctx.metrics.geo,
      fence: ctx.fence,
      db: () => ctx.db,
      swapDatabase: async (prepared) => {
        await blobs.beforeSwap();
        swapping = true;
        try {
          carryRegistryInto(ctx.db, prepared);
          ctx.db.close();
          await swapInSnapshot(prepared, dbFile);
          const db = openDatabase(dbFile);
          migrate(db);
          syncCaptureTriggers(db, false);
          ctx.db = db;
        } finally {
          swapping = false;
        }
        blobs.afterSwap();
      },
      onApplied: (cursor, blobEvents, tables) => {
        // Settings are read from memory on every request: a replicated change must reach them.
        if (tables.has('application_settings')) forgetApplicationSettings(ctx.db);
        waiter.applied(cursor.lastEventId);
        // Row events alone add no registry work: waking the scheduler for each would cost a claim per batch.
        if (blobEvents) blobs.onApplied();
      },
      blobsPendingSince: () => blobs.pendingSince(),
      holds: (event) => {
        const nodeId = selectiveNodeId(ctx.db, ctx.nodeName);
        return nodeId === null || isItemSelected(ctx.db, nodeId, event.type, event.id, event.project_id);
      },
    },
    client,
  );
  const ready = () => agent.state.bootstrapped && !swapping;
  const currentStatus = (): GeoNodeStatus | null => {
    const nodeId = agent.state.nodeId ?? (ready() ? findGeoNodeByName(ctx.db, ctx.nodeName)?.id : undefined);
    if (nodeId === undefined || nodeId === null) return null;
    const cursor = ready() ? readCursor(ctx.db) : null;
    const problems: string[] = [];
    if (!agent.state.bootstrapped) problems.push('Not bootstrapped yet: copying the database from the primary');
    if (agent.state.behindPrunedHorizon) problems.push("The cursor fell behind the primary's pruned event log; re-bootstrapping from a snapshot");
    if (agent.state.fencedOut) problems.push(`Fenced out: ${agent.state.fencedOut}`);
    else if (agent.state.lastError) problems.push(`Replication error: ${agent.state.lastError}`);
    const status = buildStatus({
      nodeId,
      lastEventId: agent.state.primaryLastEventId,
      lastEventAt: agent.state.primaryLastEventAt,
      cursorEventId: cursor?.lastEventId ?? null,
      cursorEventAt: cursor?.lastEventAt ?? null,
      problems,
      blobs: blobs.counts(),
      verification: blobs.verification(),
      version: versionString(ctx.config.edition),
      revision,
      now: Date.now(),
    });
    return withFailover(status, ready() ? ctx.db : null, ctx.fence, null);
  };
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      await blobs.stop();
      waiter.close();
      await agent.stop();
    })());
  const source = {
    client,
    agent: agent.state,
    cursor: () => (ready() ? readCursor(ctx.db) : null),
    blobCounts: () => blobs.counts(),
    missingOnPrimary: () => (ready() ? missingOnPrimaryCount(ctx.db) : 0),
    backfill: () => blobs.backfill(),
  };
  let promoting = false;
  const promote = async (options: PromoteOptions, progress: (line: PromotionProgress) => void): Promise<PromotionReport> => {
    if (promoting) throw conflict('A promotion of this site is already under way');
    if (!ready()) throw conflict('This secondary has no database yet (it is still copying it from the primary): it cannot be promoted');
    promoting = true;
    try {
      return await promoteSecondary(ctx, { source, primaryUrl, stopReplication: stop }, options, progress);
    } finally {
      promoting = false;
    }
  };
  return {
    role: 'secondary',
    primaryUrl,
    promote,
    unsyncedBlobs: () => Object.values(blobs.counts()).reduce((sum, c) => sum + Math.max(0, c.count - c.synced), 0),
    registry: {
      resync: (type, itemId) => blobs.resync(type, itemId),
      resyncFailed: (type) => blobs.resyncFailed(type),
      verify: (type, itemId) => blobs.verify(type, itemId),
    },
    cursor: waiter,
    ready,
    currentStatus,
    storedStatus: (nodeId) => (ready() ? storedStatusOf(ctx, nodeId) : null),
    reportStatus: async () => {
      const status = currentStatus();
      if (!status) return;
      // A 404 means an admin deleted this node on the primary: register again at the next step.
      await client.reportStatus(status).catch((error: unknown) => {
        ctx.metrics.geoStatus.countFailedStatusCheck({ name: ctx.nodeName, url: ctx.externalUrl });
        if (error instanceof PrimaryError && error.status === 404) agent.forgetNode();
        throw error;
      });
    },
    backfill: () => blobs.backfill(),
    reverify: () => blobs.reverify(),
    start: () => {
      agent.start();
      blobs.start();
    },
    stop,
  };
}

/**
 * Copies the site-local sync registry into a prepared snapshot before it replaces the database:
 * the copies on disk outlive a re-bootstrap, and so must what this site knows about them.
 */
function carryRegistryInto(db: Db, prepared: string): void {
  db.prepare('ATTACH DATABASE ? AS snapshot').run(prepared);
  try {
    db.exec('DELETE FROM snapshot.geo_registry; INSERT INTO snapshot.geo_registry SELECT * FROM main.geo_registry;');
  } finally {
    db.exec('DETACH DATABASE snapshot');
  }
}
