import type { Logger } from 'pino';
import type { Db } from '../../db/connection.js';
import type { GeoSyncMetrics } from '../../observability/metrics.js';
import type { PrimaryClient } from '../agent/primary-client.js';
import type { BlobType } from '../blobs.js';
import { claimDueItems, finishFailed, finishSynced, pathInUse, releaseItem, removeItem, sweepStarted, type RegistryItem } from '../registry/queue.js';
import type { RetryPolicy } from '../registry/retry.js';
import { describeFailure } from './failure.js';
import { syncFile } from './file-sync.js';
import { removeLocalCopy } from './local-copy.js';
import { syncRepository } from './repository-sync.js';

/** Capacity classes, as a geo node's settings name them: repos_max_capacity and files_max_capacity. */
export type SyncClass = 'repos' | 'files';
const CLASS_TYPES: Readonly<Record<SyncClass, readonly BlobType[]>> = {
  repos: ['repository', 'wiki'],
  files: ['lfs_object', 'job_artifact', 'attachment'],
};
const classOf = (type: BlobType): SyncClass => (type === 'repository' || type === 'wiki' ? 'repos' : 'files');

export interface SchedulerHost {
  readonly dataDir: string;
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
}

interface Task {
  readonly abort: AbortController;
  readonly done: Promise<void>;
}

/**
 * The one executor of blob syncs on a secondary. Events (woken by the applier) and the backfill
 * only make registry rows pending; this claims due rows up to each class's capacity, so one
 * budget bounds everything, and claims more as syncs finish. A timer picks up retries that came due.
 */
export class SyncScheduler {
  private readonly tasks = new Map<number, Task>();
  private readonly running: Record<SyncClass, number> = { repos: 0, files: 0 };
  private timer: NodeJS.Timeout | null = null;
  private paused = false;
  private stopped = false;

  constructor(private readonly host: SchedulerHost) {}

  start(): void {
    if (this.host.ready()) sweepStarted(this.host.db());
    this.timer = setInterval(() => this.wake(), this.host.pollMs);
    this.wake();
  }

  /** Claims as much due work as the budget allows. Cheap when there is none: call it freely. */
  wake(): void {
    if (this.stopped || this.paused || !this.host.ready()) return;
    try {
      const capacity = this.host.capacity();
      const now = Date.now();
      for (const syncClass of ['repos', 'files'] as const) {
        for (const item of claimDueItems(this.host.db(), CLASS_TYPES[syncClass], capacity[syncClass] - this.running[syncClass], now)) this.launch(item);
      }
    } catch (error) {
      this.host.log.error({ err: error }, 'geo sync: could not claim due items');
    }
  }

  /** Interrupts every sync (their items go back to pending) and claims nothing until resume(): the database is about to be swapped. */
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

  private async interruptAll(): Promise<void> {
    for (const task of this.tasks.values()) task.abort.abort();
    await Promise.all([...this.tasks.values()].map((task) => task.done));
  }

  private launch(item: RegistryItem): void {
    const syncClass = classOf(item.item_type);
    const abort = new AbortController();
    this.running[syncClass]++;
    const done = this.run(item, abort.signal).finally(() => {
      this.running[syncClass]--;
      this.tasks.delete(item.id);
      this.wake();
    });
    this.tasks.set(item.id, { abort, done });
  }

  private async run(item: RegistryItem, signal: AbortSignal): Promise<void> {
    const started = performance.now();
    const observe = (outcome: 'synced' | 'failed' | 'deleted') => {
      this.host.metrics.syncs.inc({ type: item.item_type, outcome });
      this.host.metrics.syncDuration.observe({ type: item.item_type, outcome }, (performance.now() - started) / 1000);
    };
    const deps = { dataDir: this.host.dataDir, db: () => this.host.db(), client: this.host.client, signal };
    try {
      if (item.to_delete) {
        if (!pathInUse(this.host.db(), item)) await removeLocalCopy(this.host.dataDir, item);
        if (removeItem(this.host.db(), item) === 'deleted') observe('deleted');
        return;
      }
      const checksum = classOf(item.item_type) === 'repos' ? await syncRepository(item, deps) : await syncFile(item, deps);
      if (signal.aborted) return releaseItem(this.host.db(), item);
      if (finishSynced(this.host.db(), item, checksum, Date.now()) === 'synced') {
        observe('synced');
        if (item.event_at !== null) this.host.metrics.syncLag.observe({ type: item.item_type }, Math.max(0, Date.now() - item.event_at) / 1000);
      }
    } catch (error) {
      if (signal.aborted) return releaseItem(this.host.db(), item);
      const failure = describeFailure(error);
      const policy = failure.missingOnPrimary ? this.host.missingRetry : this.host.retry;
      if (finishFailed(this.host.db(), item, failure, Date.now(), policy) === 'failed') observe('failed');
      this.host.log.warn({ type: item.item_type, item_id: item.item_id, failure_type: failure.failureType, retry_count: item.retry_count + 1, error: failure.message }, 'geo sync failed');
    }
  }
}
