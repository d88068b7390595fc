import type { GeoFailoverMetrics } from '../observability/metrics.js';

/** A secondary that has not asked for events this long (its long poll lasts 10 s) does not count. */
const LIVE_MS = 30_000;

/** The outcome of one write's wait: confirmed, timed out, or answered without waiting (asynchronous). */
export type SyncOutcome = 'applied' | 'timeout' | 'unconfirmed' | 'off';

/** What status and metrics show of synchronous replication. */
export interface SyncReplicationState {
  readonly replicas_required: number;
  readonly mode: 'off' | 'synchronous' | 'degraded';
  /** Secondaries that asked for events recently, with the last event each applied. */
  readonly replicas: Array<{ node: string; applied_event_id: number; seen_seconds_ago: number }>;
  readonly writes_timed_out: number;
  readonly degraded_since: string | null;
}

/** A write that timed out: when, and the newest event then (synchronous again once enough secondaries applied it). */
export interface ReplicaTimeout {
  readonly at: number;
  readonly resumeAt: number;
}

/**
 * The primary's view of what each secondary applied (issue 18, item 4). A secondary's long poll
 * asks for the events after the last one it applied, so every poll is an acknowledgement. With
 * `required` > 0 a write waits until that many live secondaries applied its event, at most
 * `timeoutMs`. After a timeout the primary degrades to asynchronous (writes are answered at once and
 * counted unconfirmed) until enough secondaries have caught up with its newest event again: one
 * dead secondary must not add the timeout to every write.
 */
export class ReplicaPositions {
  /** Per secondary: the last event applied, when it last asked, and the primary's time of its oldest unsynced blob event (null: none; undefined: not reported). */
  private readonly nodes = new Map<string, { applied: number; seenAt: number; blobsPendingSince: number | null | undefined }>();
  private readonly waiters = new Set<{ eventId: number; blobsAt: number | null; done: (outcome: SyncOutcome) => void }>();
  private degradedSince: number | null = null;
  /** The newest event when degradation began: synchronous again once enough secondaries applied it. */
  private resumeAt = 0;
  private timedOut = 0;

  constructor(
    private readonly required: number,
    private readonly timeoutMs: number,
    private readonly newestEvent: () => number,
    private readonly metrics: GeoFailoverMetrics,
    /** Tells the site's other workers of a timeout (their recordTimeout): the whole site degrades at once and counts every timeout. */
    private readonly tellOthers: (timeout: ReplicaTimeout) => void = () => undefined,
  ) {
    metrics.synchronous.set(required > 0 ? 1 : 0);
  }

  get enabled(): boolean {
    return this.required > 0;
  }

  /**
   * A secondary asked for events after `eventId`: it has applied everything up to it, and its
   * blobs are synced up to `blobsPendingSince` (the time of its oldest unsynced blob event).
   */
  applied(node: string, eventId: number, blobsPendingSince?: number | null): void {
    const now = Date.now();
    const known = this.nodes.get(node);
    this.nodes.set(node, { applied: Math.max(eventId, known?.applied ?? 0), seenAt: now, blobsPendingSince });
    if (!this.enabled) return;
    if (this.degradedSince !== null && this.confirmed(this.resumeAt, null, now)) {
      this.degradedSince = null;
      this.metrics.synchronous.set(1);
    }
    for (const waiter of [...this.waiters]) if (this.confirmed(waiter.eventId, waiter.blobsAt, now)) waiter.done('applied');
  }

  /** Enough live secondaries applied `eventId`, and when the write changed blobs (their newest event at `blobsAt`), synced them too. */
  private confirmed(eventId: number, blobsAt: number | null, now: number): boolean {
    let count = 0;
    for (const position of this.nodes.values()) {
      if (position.applied < eventId || now - position.seenAt > LIVE_MS) continue;
      if (blobsAt !== null && (position.blobsPendingSince === undefined || (position.blobsPendingSince !== null && position.blobsPendingSince <= blobsAt))) continue;
      count++;
    }
    return count >= this.required;
  }

  /**
   * Resolves once `required` live secondaries applied `eventId` (and, for a write that changed blobs
   * with its newest blob event at `blobsAt`, synced them), on timeout, or at once when off or degraded.
   */
  waitFor(eventId: number, blobsAt: number | null = null): Promise<SyncOutcome> {
    if (!this.enabled) return Promise.resolve('off');
    if (this.confirmed(eventId, blobsAt, Date.now())) return this.count('applied', 0);
    if (this.degradedSince !== null) return this.count('unconfirmed', 0);
    const started = Date.now();
    return new Promise((resolve) => {
      const waiter = {
        eventId,
        blobsAt,
        done: (outcome: SyncOutcome) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          if (outcome === 'timeout') {
            const timeout = { at: Date.now(), resumeAt: this.newestEvent() };
            this.recordTimeout(timeout);
            this.tellOthers(timeout);
          }
          resolve(this.count(outcome, Date.now() - started));
        },
      };
      const timer = setTimeout(() => waiter.done('timeout'), this.timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** A write timed out here or in another worker of the site: counted, and the site degrades unless it already is. */
  recordTimeout({ at, resumeAt }: ReplicaTimeout): void {
    this.timedOut++;
    if (this.degradedSince === null) {
      this.degradedSince = at;
      this.resumeAt = resumeAt;
    }
    this.metrics.synchronous.set(0);
  }

  private count(outcome: SyncOutcome, waitedMs: number): Promise<SyncOutcome> {
    this.metrics.syncWrites.inc({ outcome });
    this.metrics.syncWait.observe(waitedMs / 1000);
    return Promise.resolve(outcome);
  }

  state(): SyncReplicationState {
    const now = Date.now();
    return {
      replicas_required: this.required,
      mode: !this.enabled ? 'off' : this.degradedSince === null ? 'synchronous' : 'degraded',
      replicas: [...this.nodes.entries()]
        .filter(([, position]) => now - position.seenAt <= LIVE_MS)
        .map(([node, position]) => ({ node, applied_event_id: position.applied, seen_seconds_ago: Math.floor((now - position.seenAt) / 1000) })),
      writes_timed_out: this.timedOut,
      degraded_since: this.degradedSince === null ? null : new Date(this.degradedSince).toISOString(),
    };
  }

  /** The health text of a degraded primary; null while synchronous or off. */
  problem(): string | null {
    if (this.degradedSince === null) return null;
    return (
      `Synchronous replication degraded: fewer than ${this.required} secondaries applied writes within ${this.timeoutMs} ms ` +
      `(${this.timedOut} write(s) timed out; asynchronous since ${new Date(this.degradedSince).toISOString()})`
    );
  }

  close(): void {
    for (const waiter of [...this.waiters]) waiter.done('unconfirmed');
  }
}
