import type { Logger } from 'pino';
import { inTransaction, type Db } from '../../db/connection.js';
import type { GeoSyncMetrics } from '../../observability/metrics.js';
import type { BlobStores } from '../../storage/blob-stores.js';
import type { PrimaryClient } from '../agent/primary-client.js';
import { GIT_BLOB_TYPES, isGitBlobType, type BlobType } from '../blobs.js';
import { dueItems, finishFailed, finishSynced, markStarted, pathInUse, releaseItem, removeItem, sweepStarted, type RegistryItem, type SyncFailureRecord } from '../registry/queue.js';
import type { RetryPolicy } from '../../backoff.js';
import { describeFailure } from './failure.js';
import { syncFile } from './file-sync.js';
import { removeLocalCopy } from './local-copy.js';
import { syncRepository } from './repository-sync.js';

/** Capacity classes, as a geo node's settings name them: repos_max_capacity and files_max_capacity. */
const SYNC_CLASSES = ['repos', 'files'] as const;
export type SyncClass = (typeof SYNC_CLASSES)[number];
const CLASS_TYPES: Readonly<Record<SyncClass, readonly BlobType[]>> = {
  repos: GIT_BLOB_TYPES,
  files: ['lfs_object', 'job_artifact', 'attachment'],
};
const classOf = (type: BlobType): SyncClass => (isGitBlobType(type) ? 'repos' : 'files');

export interface SchedulerHost {
  readonly dataDir: string;
  readonly blobs: BlobStores;
  readonly log: Logger;
  readonly metrics: GeoSyncMetrics;
  readonly client: PrimaryClient;
  db(): Db;
  /** False while the site has no database to work on (before its bootstrap, during a swap). */
  ready(): boolean;
  /** Syncs allowed at once per class: this node's geo_nodes settings. */
  capacity(): Record<SyncClass, number>;
  readonly retry: RetryPolicy;
  /** For items the primary does not have (decision 16: retried on a longer cap). */
  readonly missingRetry: RetryPolicy;
  readonly pollMs: number;
  /** Outcomes were recorded: synchronous replication may be waiting for them (geo/agent/agent.ts nudge). */
  readonly onRecorded?: () => void;
}

interface Task {
  readonly abort: AbortController;
  readonly done: Promise<void>;
}

/** How a sync ended, before the registry records it. */
type Outcome =
  | { readonly kind: 'synced'; readonly checksum: string | null }
  | { readonly kind: 'failed'; readonly failure: SyncFailureRecord }
  | { readonly kind: 'deleted' }
  /** Interrupted (the site stopping or swapping its database): pending again, no retry counted. */
  | { readonly kind: 'released' };

interface Settled {
  readonly item: RegistryItem;
  readonly outcome: Outcome;
  readonly seconds: number;
  /** When the sync ended (epoch ms): what the registry records, not the later time of its write. */
  readonly endedAt: number;
}

/** How long the outcomes and starts of syncs wait to be written together: a few files' worth at full speed. */
const WRITE_DELAY_MS = 10;

/**
 * The one executor of blob syncs on a secondary. Events (woken by the applier) and the backfill
 * only make registry rows pending; this runs due items up to each class's capacity, so one budget
 * bounds everything, and starts more as syncs finish. A timer picks up retries that came due.
 *
 * Registry writes are batched, so a stream of small files does not pay a commit or two per file:
 * a claim selects, beyond the free slots, up to one capacity's worth of due items to start next
 * (held here, unchanged in the registry); starts and outcomes are written together at most
 * WRITE_DELAY_MS later, in one transaction, before any new claim. A row is `started` only while
 * its sync runs; one that a crash cuts off before its start was written is simply still due.
 */
export class SyncScheduler {
  private readonly tasks = new Map<number, Task>();
  private readonly running: Record<SyncClass, number> = { repos: 0, files: 0 };
  /** Selected by the last claim, not yet started; forgotten (still due in the registry) at the next claim or a pause. */
  private ahead: Record<SyncClass, RegistryItem[]> = { repos: [], files: [] };
  /** Classes whose last claim found fewer due items than it asked for: no claim until something may have become due. */
  private exhausted: Record<SyncClass, boolean> = { repos: false, files: false };
  /** Syncs started since the last write. */
  private launched: Array<{ readonly item: RegistryItem; readonly at: number }> = [];
  /** Syncs ended since the last write. */
  private settled: Settled[] = [];
  private pumpQueued = false;
  private writeTimer: NodeJS.Timeout | null = null;
  private timer: NodeJS.Timeout | null = null;
  private paused = false;
  private stopped = false;

  constructor(private readonly host: SchedulerHost) {}

  start(): void {
    if (this.host.ready()) sweepStarted(this.host.db());
    this.timer = setInterval(() => this.wake(), this.host.pollMs);
    this.wake();
  }

  /** New work may be due (an event, the backfill, the timer): starts as much as the budget allows, on the next turn. Cheap when there is none. */
  wake(): void {
    this.mayBeDue();
    this.pump();
  }

  /** Every class may have due items again: its next free slot claims. */
  private mayBeDue(): void {
    this.exhausted = { repos: false, files: false };
  }

  /** Schedules a pump on the next turn: many calls in one turn make one. */
  private pump(): void {
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    setImmediate(() => {
      this.pumpQueued = false;
      this.fillSlots();
    });
  }

  /** Interrupts every sync (their items go back to pending) and starts nothing until resume(): the database is about to be swapped. */
  async pause(): Promise<void> {
    this.paused = true;
    await this.interruptAll();
  }

  /** After a swap: a crash-free restart of the queue on the new database. */
  resume(): void {
    this.paused = false;
    if (this.host.ready()) sweepStarted(this.host.db());
    this.wake();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.interruptAll();
  }

  /** Aborts the syncs in flight and writes what they and the others did before the database goes away. */
  private async interruptAll(): Promise<void> {
    this.ahead = { repos: [], files: [] };
    for (const task of this.tasks.values()) task.abort.abort();
    await Promise.all([...this.tasks.values()].map((task) => task.done));
    this.write();
  }

  /** Fills the free slots of each class that may start syncs from the items selected ahead, claiming (with a write) when those do not suffice. */
  private fillSlots(): void {
    if (this.stopped || this.paused || !this.host.ready()) return;
    const capacity = this.host.capacity();
    const open = SYNC_CLASSES.filter((syncClass) => this.mayLaunch(syncClass, capacity[syncClass]));
    const short = open.filter((syncClass) => !this.exhausted[syncClass] && capacity[syncClass] - this.running[syncClass] > this.ahead[syncClass].length);
    if (short.length > 0 && !this.write({ classes: short, capacity })) return;
    for (const syncClass of open) {
      const ahead = this.ahead[syncClass];
      for (let free = capacity[syncClass] - this.running[syncClass]; free > 0 && ahead.length > 0; free--) this.launch(ahead.shift()!);
    }
  }

  /**
   * Files start in groups of at least half their capacity while some run, so that their transfers
   * share a request (PrimaryClient batches the small files one fill asks for); filling each slot
   * as it frees would send them one by one (2.4 files per request on average in geo-blob-sync, 6
   * with groups). The class still runs between half and all of its capacity.
   */
  private mayLaunch(syncClass: SyncClass, capacity: number): boolean {
    const running = this.running[syncClass];
    if (running === 0) return true;
    return syncClass === 'files' ? capacity - running >= Math.ceil(capacity / 2) : running < capacity;
  }

  private scheduleWrite(): void {
    this.writeTimer ??= setTimeout(() => this.write(), WRITE_DELAY_MS);
  }

  /**
   * One transaction: the starts and outcomes since the last write, then, with `claim`, a fresh
   * selection of due items for each of its classes (written starts exclude the running ones).
   * False when the registry could not be written.
   */
  private write(claim?: { readonly classes: readonly SyncClass[]; readonly capacity: Record<SyncClass, number> }): boolean {
    if (this.writeTimer) clearTimeout(this.writeTimer);
    this.writeTimer = null;
    if (!this.host.ready() || (!claim && this.launched.length === 0 && this.settled.length === 0)) return true;
    const launched = this.launched;
    const settled = this.settled;
    this.launched = [];
    this.settled = [];
    let results: string[];
    try {
      const db = this.host.db();
      results = inTransaction(db, () => {
        for (const { item, at } of launched) markStarted(db, item, at);
        const recorded = settled.map((entry) => this.record(db, entry));
        if (claim) this.claim(db, claim.classes, claim.capacity);
        return recorded;
      });
    } catch (error) {
      // Written rows stay `started` (the sweep at the next start makes them pending again); the rest are still due.
      this.host.log.error({ err: error }, 'geo sync: could not record outcomes or claim due items');
      return false;
    }
    // An item superseded by an event meanwhile is due again.
    if (results.includes('superseded')) this.mayBeDue();
    settled.forEach((entry, index) => this.report(entry, results[index]!));
    if (settled.length) this.host.onRecorded?.();
    return true;
  }

  /** For each class: the free slots plus one capacity more, oldest due first. */
  private claim(db: Db, classes: readonly SyncClass[], capacity: Record<SyncClass, number>): void {
    const now = Date.now();
    for (const syncClass of classes) {
      const limit = 2 * capacity[syncClass] - this.running[syncClass];
      this.ahead[syncClass] = dueItems(db, CLASS_TYPES[syncClass], limit, now);
      this.exhausted[syncClass] = this.ahead[syncClass].length < limit;
    }
  }

  private record(db: Db, { item, outcome, endedAt }: Settled): string {
    switch (outcome.kind) {
      case 'synced':
        return finishSynced(db, item, outcome.checksum, endedAt);
      case 'failed':
        return finishFailed(db, item, outcome.failure, endedAt, outcome.failure.missingOnPrimary ? this.host.missingRetry : this.host.retry);
      case 'deleted':
        return removeItem(db, item);
      case 'released':
        releaseItem(db, item);
        return 'released';
    }
  }

  /** Metrics and the log line of an outcome the registry recorded as such (not superseded by an event meanwhile). */
  private report({ item, outcome, seconds, endedAt }: Settled, result: string): void {
    if (outcome.kind === 'failed') {
      const { failureType, message } = outcome.failure;
      this.host.log.warn({ type: item.item_type, item_id: item.item_id, failure_type: failureType, retry_count: item.retry_count + 1, error: message }, 'geo sync failed');
    }
    if (outcome.kind === 'released' || result !== outcome.kind) return;
    this.host.metrics.syncs.inc({ type: item.item_type, outcome: outcome.kind });
    this.host.metrics.syncDuration.observe({ type: item.item_type, outcome: outcome.kind }, seconds);
    if (outcome.kind === 'synced' && item.event_at !== null) this.host.metrics.syncLag.observe({ type: item.item_type }, Math.max(0, endedAt - item.event_at) / 1000);
  }

  private launch(item: RegistryItem): void {
    const syncClass = classOf(item.item_type);
    const abort = new AbortController();
    const started = performance.now();
    this.running[syncClass]++;
    this.launched.push({ item, at: Date.now() });
    this.scheduleWrite();
    const done = this.run(item, abort.signal).then((outcome) => {
      this.running[syncClass]--;
      this.tasks.delete(item.id);
      this.settled.push({ item, outcome, seconds: (performance.now() - started) / 1000, endedAt: Date.now() });
      this.scheduleWrite();
      this.pump();
    });
    this.tasks.set(item.id, { abort, done });
  }

  private async run(item: RegistryItem, signal: AbortSignal): Promise<Outcome> {
    const deps = { dataDir: this.host.dataDir, blobs: this.host.blobs, db: () => this.host.db(), client: this.host.client, signal };
    try {
      if (item.to_delete) {
        if (!pathInUse(this.host.db(), item)) await removeLocalCopy(this.host.dataDir, this.host.blobs, item);
        return { kind: 'deleted' };
      }
      const checksum = classOf(item.item_type) === 'repos' ? await syncRepository(item, deps) : await syncFile(item, deps);
      return signal.aborted ? { kind: 'released' } : { kind: 'synced', checksum };
    } catch (error) {
      return signal.aborted ? { kind: 'released' } : { kind: 'failed', failure: describeFailure(error) };
    }
  }
}
