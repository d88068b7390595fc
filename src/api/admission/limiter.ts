import type { AdmissionConfig, ConcurrencyLimit } from '../../config.js';
import type { AdmissionMetrics } from '../../observability/metrics.js';

/** Why a request was not admitted: every slot and queue place taken (429), or it waited the whole queue timeout (503). */
export type Refusal = 'queue_full' | 'queue_timeout';

interface Waiter {
  readonly since: number;
  readonly admitted: (release: () => void) => void;
  readonly refused: (reason: Refusal) => void;
  timer: NodeJS.Timeout | null;
}

/**
 * A counting semaphore with a bounded FIFO queue and a queue timeout: Workhorse's request queueing
 * and Gitaly's concurrency limiter, in one process. A slot is handed straight from the request
 * that releases it to the oldest waiter, so no newcomer overtakes the queue.
 */
export class ConcurrencyLimiter {
  private inFlight = 0;
  /** Insertion-ordered: the first entry is the oldest waiter, and a waiter that gives up leaves in O(1). */
  private readonly waiting = new Set<Waiter>();

  constructor(
    readonly name: string,
    readonly settings: ConcurrencyLimit,
    private readonly metrics: AdmissionMetrics,
  ) {
    for (const reason of ['queue_full', 'queue_timeout']) metrics.rejected.inc({ limiter: name, reason }, 0);
  }

  figures() {
    return { limiter: this.name, inFlight: this.inFlight, queued: this.waiting.size, limit: this.settings.limit };
  }

  /**
   * Takes a slot now (calling `admitted` before returning) or queues for one; `refused` is called
   * instead when the queue is full or the wait times out. Returns `withdraw`, for a waiter whose
   * client went away: it leaves the queue without being counted as refused.
   */
  enter(admitted: (release: () => void) => void, refused: (reason: Refusal) => void): () => void {
    const { limit, queueLimit, queueTimeoutMs } = this.settings;
    if (limit === 0 || this.inFlight < limit) {
      this.inFlight++;
      admitted(this.releaser());
      return () => undefined;
    }
    if (this.waiting.size >= queueLimit) {
      this.metrics.rejected.inc({ limiter: this.name, reason: 'queue_full' });
      refused('queue_full');
      return () => undefined;
    }
    const waiter: Waiter = { since: performance.now(), admitted, refused, timer: null };
    waiter.timer = setTimeout(() => {
      this.waiting.delete(waiter);
      this.observeWait(waiter);
      this.metrics.rejected.inc({ limiter: this.name, reason: 'queue_timeout' });
      refused('queue_timeout');
    }, queueTimeoutMs);
    this.waiting.add(waiter);
    return () => {
      if (!this.waiting.delete(waiter)) return;
      clearTimeout(waiter.timer!);
    };
  }

  /** Releases once, however often it is called (a response may both finish and close). */
  private releaser(): () => void {
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const next = this.waiting.values().next();
      if (next.done) {
        this.inFlight--;
        return;
      }
      // The slot passes to the oldest waiter: in flight stays the same.
      const waiter = next.value;
      this.waiting.delete(waiter);
      clearTimeout(waiter.timer!);
      this.observeWait(waiter);
      waiter.admitted(this.releaser());
    };
  }

  private observeWait(waiter: Waiter): void {
    this.metrics.queueWait.observe({ limiter: this.name }, (performance.now() - waiter.since) / 1000);
  }
}

/** The limiters of one request worker; they outlive role switches, as the metrics do. */
export interface SiteLimits {
  readonly api: ConcurrencyLimiter;
  readonly uploadPack: ConcurrencyLimiter;
  readonly receivePack: ConcurrencyLimiter;
  readonly archive: ConcurrencyLimiter;
}

export function createSiteLimits(config: AdmissionConfig, metrics: AdmissionMetrics): SiteLimits {
  const limits: SiteLimits = {
    api: new ConcurrencyLimiter('api', config.api, metrics),
    uploadPack: new ConcurrencyLimiter('git_upload_pack', config.uploadPack, metrics),
    receivePack: new ConcurrencyLimiter('git_receive_pack', config.receivePack, metrics),
    archive: new ConcurrencyLimiter('git_archive', config.archive, metrics),
  };
  metrics.observe(() => Object.values(limits).map((limiter: ConcurrencyLimiter) => limiter.figures()));
  return limits;
}
