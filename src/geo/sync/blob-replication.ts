import type { SiteContext } from '../../site-context.js';
import type { PrimaryClient } from '../agent/primary-client.js';
import { findGeoNodeByName } from '../nodes.js';
import { selectiveNodeId } from '../selective-sync.js';
import { blobsPendingSince, registryBlobCounts, registryVerificationCounts } from '../registry/counts.js';
import { resetFailed } from '../registry/queue.js';
import { noBlobs, type BlobCounts, type BlobKind, type VerificationCounts, type VerifiedKind } from '../status.js';
import { backfillRunner } from './backfill.js';
import { SyncScheduler } from './scheduler.js';
import { reverifyBatch, verifyItem, type ItemVerification } from './verify.js';
import type { BlobType } from '../blobs.js';
import { registryItem, resyncFailed, resyncItem } from '../registry/resync.js';
import { prepare } from '../../db/connection.js';

/** A secondary's blob replication, as its runtime drives it. */
export interface BlobReplication {
  /** Schedules what the registry lacks from the replicated database, and reconciles what it has (jobs/schedule.ts runs it). */
  backfill(): Promise<void>;
  /** Checks one batch of synced copies that are due for re-verification; a bad one is synced again (jobs/schedule.ts runs it). */
  reverify(): Promise<void>;
  start(): void;
  stop(): Promise<void>;
  /** Events were applied (or a bootstrap finished): new registry rows may be due. */
  onApplied(): void;
  /** Before the database is swapped for a snapshot: interrupt syncs, their items back to pending. */
  beforeSwap(): Promise<void>;
  /** After the swap (a repair or a fall behind the pruned log): failed items retry now, and a backfill follows. */
  afterSwap(): void;
  counts(): Record<BlobKind, BlobCounts>;
  /** The verified kinds' checksum and verification figures; undefined until bootstrapped. */
  verification(): Record<VerifiedKind, VerificationCounts> | undefined;
  /**
   * The primary's time of the oldest blob event not synced here yet; null when every item is synced.
   * Sent with each long poll, so a primary under synchronous replication knows which pushes and
   * uploads this site holds (issue 18, item 4).
   */
  pendingSince(): number | null;
  /** `geoforge geo resync <type> <id>`: the item pending again now, the workers woken; its registry id. */
  resync(type: BlobType, itemId: number): number;
  /** `geoforge geo resync --all-failed`: every failed item (of `type`) pending again now; their registry ids. */
  resyncFailed(type?: BlobType): number[];
  /** `geoforge geo verify <type> <id>`: one item's copy checked against the primary's checksum now. */
  verify(type: BlobType, itemId: number): Promise<ItemVerification>;
}

const CAPACITY_TTL_MS = 1000;

/** Wires the scheduler, the backfill and the verification of a secondary to its context. */
export function createBlobReplication(ctx: SiteContext, client: PrimaryClient, ready: () => boolean, onRecorded?: () => void): BlobReplication {
  const tuning = ctx.config.geo;
  const retry = { baseMs: tuning.retryBaseMs, capMs: tuning.retryCapSeconds * 1000 };
  let capacity = { at: -Infinity, value: { repos: 0, files: 0 } };
  const scheduler = new SyncScheduler({
    dataDir: ctx.config.dataDir,
    blobs: ctx.blobs,
    log: ctx.log,
    metrics: ctx.metrics.geo,
    client,
    db: () => ctx.db,
    ready,
    capacity: () => {
      // Asked after every finished sync; an admin's change of the node's capacities may take a second.
      const now = Date.now();
      if (now - capacity.at >= CAPACITY_TTL_MS) {
        const node = findGeoNodeByName(ctx.db, ctx.nodeName);
        capacity = { at: now, value: { repos: node?.repos_max_capacity ?? tuning.reposMaxCapacity, files: node?.files_max_capacity ?? tuning.filesMaxCapacity } };
      }
      return capacity.value;
    },
    retry,
    missingRetry: { baseMs: tuning.retryBaseMs, capMs: tuning.missingRetryCapSeconds * 1000 },
    pollMs: tuning.syncPollMs,
    onRecorded,
  });
  const backfill = backfillRunner(
    { db: () => ctx.db, ready, batch: tuning.backfillBatch, onScheduled: () => scheduler.wake(), selectiveNode: () => selectiveNodeId(ctx.db, ctx.nodeName) },
    (error) => ctx.log.error({ err: error }, 'geo backfill failed'),
  );
  // A bootstrap brings a database whose items no event announced: the backfill finds them.
  let backfillDue = true;
  return {
    backfill: () => backfill.run(),
    reverify: async () => {
      if (!ready() || tuning.verifyBatch === 0) return;
      const result = await reverifyBatch({ dataDir: ctx.config.dataDir, blobs: ctx.blobs, db: () => ctx.db, retry, maxAgeMs: tuning.reverifySeconds * 1000, batch: tuning.verifyBatch });
      if (result.failed) scheduler.wake();
    },
    start: () => {
      scheduler.start();
      if (ready()) {
        backfillDue = false;
        void backfill.run();
      }
    },
    stop: async () => {
      await backfill.stop();
      await scheduler.stop();
    },
    onApplied: () => {
      scheduler.wake();
      if (backfillDue && ready()) {
        backfillDue = false;
        void backfill.run();
      }
    },
    beforeSwap: () => scheduler.pause(),
    afterSwap: () => {
      ctx.log.info({ reset: resetFailed(ctx.db) }, 'geo sync: new database in place; every failed item retries now');
      backfillDue = true;
      scheduler.resume();
    },
    counts: () => (ready() ? registryBlobCounts(ctx.db, selectiveNodeId(ctx.db, ctx.nodeName)) : noBlobs()),
    verification: () => (ready() ? registryVerificationCounts(ctx.db) : undefined),
    pendingSince: () => (ready() ? blobsPendingSince(ctx.db) : 0),
    resync: (type, itemId) => {
      const id = resyncItem(ctx.db, type, itemId);
      scheduler.wake();
      return id;
    },
    resyncFailed: (type) => {
      const ids = resyncFailed(ctx.db, type);
      if (ids.length) scheduler.wake();
      return ids;
    },
    verify: async (type, itemId) => {
      const item = registryItem(ctx.db, type, itemId);
      const state = prepare(ctx.db, 'SELECT state FROM geo_registry WHERE id = ?').pluck().get(item.id) as string;
      const result = await verifyItem({ dataDir: ctx.config.dataDir, blobs: ctx.blobs, db: () => ctx.db, retry }, item, state);
      if (result.result === 'failed') scheduler.wake();
      return result;
    },
  };
}
