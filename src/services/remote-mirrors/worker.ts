import type { Logger } from 'pino';
import { retryDelayMs, type RetryPolicy } from '../../backoff.js';
import type { Role } from '../../config.js';
import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import {
  markRemoteMirrorStarted,
  nextRemoteMirrorDueAt,
  recordRemoteMirrorAttempt,
  requeueStartedRemoteMirrors,
  selectDueRemoteMirrors,
  type RemoteMirrorRow,
} from '../../db/tables/remote-mirrors.js';
import { nowIso } from '../../storage/clock.js';
import { DueWake } from '../../due-wake.js';
import { pushToMirror } from './push-mirror.js';

export interface RemoteMirrorWorkerOptions {
  readonly role: Role;
  /** The site's database, read at each use (a secondary swaps it when it bootstraps). */
  readonly db: () => Db;
  readonly dataDir: string;
  readonly log: Logger;
  /** Mirrors pushed at once, across all projects. */
  readonly concurrency?: number;
  /** Attempts per update, the first included (GitLab's UpdateRemoteMirrorService: 3). */
  readonly maxAttempts?: number;
  readonly retry: RetryPolicy;
  readonly random?: () => number;
  /** Mirror URLs may reach local addresses (allow_local_requests_from_web_hooks_and_services), asked at each attempt. */
  readonly allowLocalRequests: () => boolean;
  /** Set in a request worker: the background worker pushes the mirrors, and this tells it some are due. */
  readonly elsewhere?: () => void;
}

/**
 * Pushes the primary's repositories to their push mirrors in the background, the way webhook
 * deliveries go out (services/hooks/queue.ts): the mirror row is the queue entry (next_attempt_at),
 * so the request that asked never waits for the remote, and a restart or a promotion resumes what
 * was asked. A failed update is retried with exponential backoff and jitter (`to_retry`) up to
 * maxAttempts, then `failed`. Only the primary pushes: on a secondary every method is a no-op, and
 * the rows' states arrive by replication.
 */
export class RemoteMirrorWorker {
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly cancel = new AbortController();
  private readonly concurrency: number;
  private readonly maxAttempts: number;
  private readonly random: () => number;
  private readonly dueWake = new DueWake(() => this.pump());
  private pumpScheduled = false;
  private started = false;
  private stopped = false;

  constructor(private readonly options: RemoteMirrorWorkerOptions) {
    this.concurrency = options.concurrency ?? 4;
    this.maxAttempts = options.maxAttempts ?? 3;
    this.random = options.random ?? Math.random;
  }

  /** Whether this site pushes mirrors: the primary, while running. */
  get runs(): boolean {
    return this.options.role === 'primary' && !this.stopped;
  }

  /** Looks for due mirrors on a later turn: call it after the transaction that scheduled them committed. */
  wake(): void {
    if (this.runs && this.options.elsewhere) return this.options.elsewhere();
    if (this.pumpScheduled || !this.started || this.stopped) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  /** Starts pushing; mirrors a crash or a stop left `started` are due again. */
  start(): void {
    if (!this.runs || this.started) return;
    this.started = true;
    try {
      requeueStartedRemoteMirrors(this.options.db(), Date.now());
    } catch (error) {
      // A fenced or read-only database: nothing to resume here, and the pump reads the table again.
      this.options.log.warn({ err: error }, 'remote mirrors: could not requeue interrupted updates');
    }
    this.wake();
  }

  /** Stops: pushes in flight are killed and waited for; they stay `started` and run again at the next start. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.dueWake.clear();
    this.cancel.abort();
    await Promise.allSettled([...this.inFlight.values()]);
  }

  private pump(): void {
    if (!this.runs) return;
    try {
      const db = this.options.db();
      const free = this.concurrency - this.inFlight.size;
      if (free > 0) {
        for (const mirror of selectDueRemoteMirrors(db, Date.now(), [...this.inFlight.keys()], free)) {
          const run = this.attempt(db, mirror)
            .catch((error: unknown) => {
              if (!this.cancel.signal.aborted) this.options.log.error({ err: error, remote_mirror: mirror.id }, 'remote mirror update failed unexpectedly');
            })
            .finally(() => {
              this.inFlight.delete(mirror.id);
              this.wake();
            });
          this.inFlight.set(mirror.id, run);
        }
      }
      if (this.inFlight.size < this.concurrency) this.dueWake.arm(nextRemoteMirrorDueAt(db, [...this.inFlight.keys()]));
    } catch (error) {
      // The database is closing or swapped; the next wake reads the table again.
      this.options.log.error({ err: error }, 'remote mirrors: could not read the due mirrors');
    }
  }

  private async attempt(db: Db, mirror: RemoteMirrorRow): Promise<void> {
    inTransaction(db, () => markRemoteMirrorStarted(db, mirror.id, nowIso()));
    const result = await pushToMirror(db, this.options.dataDir, mirror, { allowLocal: this.options.allowLocalRequests(), signal: this.cancel.signal });
    const attempt = mirror.failures + 1;
    const retry = !result.ok && result.retryable && attempt < this.maxAttempts;
    const retryAt = retry ? Date.now() + retryDelayMs(attempt, this.options.retry, this.random()) : null;
    inTransaction(db, () => recordRemoteMirrorAttempt(db, mirror.id, { ok: result.ok, error: result.error, retryAt }, nowIso()));
    // The error text has its credentials masked; the mirror is named by id, never by URL.
    if (!result.ok) this.options.log.warn({ remote_mirror: mirror.id, project_id: mirror.project_id, attempt, error: result.error, willRetry: retry }, retry ? 'remote mirror update failed; retrying' : 'remote mirror update failed');
  }
}
