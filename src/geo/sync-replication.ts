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

/**
 * The primary's view of what each secondary applied (issue 18, item 4). A secondary's long poll
 * asks for the events after the last one it applied, so every poll is an acknowledgement. With
 * `required` > 0 a write waits until that many live secondaries applied its event, at most
 * `timeoutMs`. After a timeout the primary degrades to asynchronous (writes are answered at once and
 * counted unconfirmed) until enough secondaries have caught up with its newest event again: one
 * dead secondary must not add the timeout to every write.
 */
export class ReplicaPositions {
  private readonly nodes = new Map<string, { applied: number; seenAt: number }>();
  private readonly waiters = new Set<{ eventId: number; done: (outcome: SyncOutcome) => void }>();
  private degradedSince: number | null = null;
  /** The newest event when degradation began: synchronous again once enough secondaries applied it. */
  private resumeAt = 0;
  private timedOut = 0;

  constructor(
    private readonly required: number,
    private readonly timeoutMs: number,
    private readonly newestEvent: () => number,
    private readonly metrics: GeoFailoverMetrics,
  ) {
    metrics.synchronous.set(required > 0 ? 1 : 0);
  }

  get enabled(): boolean {
    return this.required > 0;
  }

  /** A secondary asked for events after `eventId`: it has applied everything up to it. */
  applied(node: string, eventId: number): void {
    const now = Date.now();
    const known = this.nodes.get(node);
    this.nodes.set(node, { applied: Math.max(eventId, known?.applied ?? 0), seenAt: now });
    if (!this.enabled) return;
    if (this.degradedSince !== null && this.confirmed(this.resumeAt, now)) {
      this.degradedSince = null;
      this.metrics.synchronous.set(1);
    }
    for (const waiter of [...this.waiters]) if (this.confirmed(waiter.eventId, now)) waiter.done('applied');
  }

  private confirmed(eventId: number, now: number): boolean {
    let count = 0;
    for (const position of this.nodes.values()) if (position.applied >= eventId && now - position.seenAt <= LIVE_MS) count++;
    return count >= this.required;
  }

  /** Resolves once `required` live secondaries applied `eventId`, on timeout, or at once when off or degraded. */
  waitFor(eventId: number): Promise<SyncOutcome> {
    if (!this.enabled) return Promise.resolve('off');
    if (this.confirmed(eventId, Date.now())) return this.count('applied', 0);
    if (this.degradedSince !== null) return this.count('unconfirmed', 0);
    const started = Date.now();
    return new Promise((resolve) => {
      const waiter = {
        eventId,
        done: (outcome: SyncOutcome) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          if (outcome === 'timeout') {
            this.timedOut++;
            if (this.degradedSince === null) {
              this.degradedSince = Date.now();
              this.resumeAt = this.newestEvent();
            }
            this.metrics.synchronous.set(0);
          }
          resolve(this.count(outcome, Date.now() - started));
        },
      };
      const timer = setTimeout(() => waiter.done('timeout'), this.timeoutMs);
      this.waiters.add(waiter);
    });
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
