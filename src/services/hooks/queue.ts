import type { Logger } from 'pino';
import { Agent } from 'undici';
import type { Role } from '../../config.js';
import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { insertWebHookLog } from '../../db/tables/web-hook-logs.js';
import {
  deleteQueuedDelivery,
  insertQueuedDelivery,
  nextDueAt,
  rescheduleDelivery,
  selectDueDeliveries,
  type DueDeliveryRow,
} from '../../db/tables/web-hook-queue.js';
import { nowIso } from '../../storage/clock.js';
import { REQUEST_BODY_LOG_LIMIT, sendHookRequest, type AttemptResult } from './deliver.js';
import { HOOK_EVENTS, type HookEvent } from './events.js';
import { retryDelayMs, type RetryPolicy } from '../../backoff.js';
import { DueWake } from '../../due-wake.js';
import { guardedLookup } from '../local-network.js';

export interface HookQueueOptions {
  readonly role: Role;
  /** The site's database, read at each use (a secondary swaps it when it bootstraps). */
  readonly db: () => Db;
  readonly log: Logger;
  /** Attempts in flight at once, across all hooks. */
  readonly concurrency?: number;
  /** One attempt, connect to last response byte. */
  readonly timeoutMs?: number;
  /** Attempts per delivery, the first included. */
  readonly maxAttempts?: number;
  readonly retry?: RetryPolicy;
  readonly random?: () => number;
  /** Deliver to loopback, link-local and private addresses too (GitLab's allow_local_requests_from_web_hooks_and_services), asked at each delivery. */
  readonly allowLocalRequests?: () => boolean;
  /**
   * Whether system hooks may reach those addresses (GitLab's allow_local_requests_from_system_hooks),
   * asked at each attempt so a changed setting applies to what is queued; false when absent.
   */
  readonly allowLocalRequestsFromSystemHooks?: () => boolean;
  /** Set in a request worker: the background worker sends the deliveries, and this tells it some were queued. */
  readonly elsewhere?: () => void;
}

/** How soon a delivery a trigger queued (db/system-hook-triggers.ts) is picked up: no code path calls enqueue for it. */
const TRIGGER_POLL_MS = 500;

/** The X-Gitlab-Event of every system hook delivery, whatever its event_name (GitLab's SystemHook). */
const SYSTEM_HOOK_HEADER = 'System Hook';

/** GitLab 10.x's WebHookWorker retried 4 times through Sidekiq; we make 4 attempts in all, minutes apart. */
const DEFAULTS = { concurrency: 8, timeoutMs: 10_000, maxAttempts: 4, retry: { baseMs: 10_000, capMs: 600_000 } } as const;

/**
 * The one way events leave a site: webhook deliveries, queued in the site-local web_hook_queue
 * table and sent by this worker with bounded concurrency. Enqueueing is one INSERT (inside the
 * caller's transaction when there is one), so the request that fires never waits for a receiver,
 * a rolled-back change fires nothing, and a restart resumes what was pending. Network errors,
 * timeouts, 5xx and 429 are retried with exponential backoff and jitter up to maxAttempts; every
 * attempt is logged in web_hook_logs. Only the primary delivers: on a secondary every method is
 * a no-op, and replicated hooks are never called from two sites.
 */
export class HookQueue {
  private readonly settings: Required<Omit<HookQueueOptions, 'db' | 'log' | 'role' | 'allowLocalRequests' | 'allowLocalRequestsFromSystemHooks' | 'elsewhere'>>;
  private readonly inFlight = new Map<number, Promise<void>>();
  private readonly cancel = new AbortController();
  /**
   * One connection pool per TLS policy (enable_ssl_verification off uses the lenient one) and per
   * local-network rule: `local` pools may connect to local addresses, `guarded` ones may not.
   */
  private readonly agents: Record<'guarded' | 'local', { verify: Agent; lenient: Agent }>;
  private readonly dueWake = new DueWake(() => this.pump());
  /** Deliveries queued by the database's own triggers (system hook events) are found by this poll. */
  private pollTimer: NodeJS.Timeout | null = null;
  private pumpScheduled = false;
  private started = false;
  private stopped = false;

  constructor(private readonly options: HookQueueOptions) {
    this.settings = {
      concurrency: options.concurrency ?? DEFAULTS.concurrency,
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      maxAttempts: options.maxAttempts ?? DEFAULTS.maxAttempts,
      retry: options.retry ?? DEFAULTS.retry,
      random: options.random ?? Math.random,
    };
    // The lookup checks each resolved address, and the socket connects to the one it checked.
    const pools = (allowLocal: boolean) => {
      const connect = { timeout: this.settings.timeoutMs, lookup: guardedLookup(() => allowLocal) };
      return { verify: new Agent({ connect }), lenient: new Agent({ connect: { ...connect, rejectUnauthorized: false } }) };
    };
    this.agents = { guarded: pools(false), local: pools(true) };
  }

  /** Whether this site sends deliveries: the primary, while running. */
  get delivers(): boolean {
    return this.options.role === 'primary' && !this.stopped;
  }

  /**
   * Queues one delivery per project hook of `hookIds` and per group hook of `groupHookIds`, due now;
   * the caller's transaction, if any, decides whether they happen.
   */
  enqueue(db: Db, hookIds: readonly number[], event: HookEvent, body: string, groupHookIds: readonly number[] = []): number {
    const count = hookIds.length + groupHookIds.length;
    if (!this.delivers || count === 0) return 0;
    const now = Date.now();
    const createdAt = nowIso();
    inTransaction(db, () => {
      for (const hookId of hookIds) insertQueuedDelivery(db, { hook_id: hookId, event, body, next_attempt_at: now, created_at: createdAt });
      for (const groupHookId of groupHookIds) insertQueuedDelivery(db, { group_hook_id: groupHookId, event, body, next_attempt_at: now, created_at: createdAt });
    });
    this.schedulePump();
    return count;
  }

  /** Queues one delivery per system hook of `systemHookIds`, due now, with GitLab's `event_name` as its event. */
  enqueueSystem(db: Db, systemHookIds: readonly number[], eventName: string, body: string): number {
    if (!this.delivers || systemHookIds.length === 0) return 0;
    const now = Date.now();
    const createdAt = nowIso();
    inTransaction(db, () => {
      for (const id of systemHookIds) insertQueuedDelivery(db, { system_hook_id: id, event: eventName, body, next_attempt_at: now, created_at: createdAt });
    });
    this.schedulePump();
    return systemHookIds.length;
  }

  /** Starts sending, and sends what a previous run left pending. */
  start(): void {
    if (!this.delivers || this.started) return;
    this.started = true;
    this.schedulePump();
    this.pollTimer = setInterval(() => this.schedulePump(), TRIGGER_POLL_MS);
    this.pollTimer.unref();
  }

  /**
   * Stops sending: attempts in flight are cancelled (logged as such, not counted, so they are sent
   * again after a restart) and waited for; queued deliveries stay in the table.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.dueWake.clear();
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.cancel.abort();
    await Promise.allSettled([...this.inFlight.values()]);
    await Promise.all(Object.values(this.agents).flatMap((pool) => [pool.verify.destroy(), pool.lenient.destroy()]));
  }

  /** Deliveries were queued by another process of the site: look for them now rather than at the next poll. */
  wake(): void {
    this.schedulePump();
  }

  /** Pumps on a later turn, so the request that fired answers before any delivery work starts. */
  private schedulePump(): void {
    if (!this.started && this.options.elsewhere) return this.options.elsewhere();
    if (this.pumpScheduled || !this.started || this.stopped) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    if (this.stopped) return;
    try {
      const db = this.options.db();
      const free = this.settings.concurrency - this.inFlight.size;
      if (free > 0) {
        for (const row of selectDueDeliveries(db, Date.now(), [...this.inFlight.keys()], free)) {
          const run = this.attempt(row)
            .catch((error: unknown) => this.options.log.error({ err: error, hook: row.hook_id, groupHook: row.group_hook_id, systemHook: row.system_hook_id, delivery: row.id }, 'webhook attempt failed unexpectedly'))
            .finally(() => {
            this.inFlight.delete(row.id);
            this.schedulePump();
          });
          this.inFlight.set(row.id, run);
        }
      }
      // With every slot taken, the next attempt to finish pumps again; a timer would only spin.
      if (this.inFlight.size < this.settings.concurrency) this.dueWake.arm(nextDueAt(db, [...this.inFlight.keys()]));
    } catch (error) {
      // The database is closing or swapped; the next start or wake reads the table again.
      this.options.log.error({ err: error }, 'webhook queue could not read its deliveries');
    }
  }

  private async attempt(row: DueDeliveryRow): Promise<void> {
    const event = row.event;
    const attempt = row.attempts + 1;
    const system = row.system_hook_id !== null;
    const allowLocal = (system ? this.options.allowLocalRequestsFromSystemHooks?.() : this.options.allowLocalRequests?.()) ?? false;
    const pool = this.agents[allowLocal ? 'local' : 'guarded'];
    const header = system ? SYSTEM_HOOK_HEADER : HOOK_EVENTS[event as HookEvent].header;
    const result = await sendHookRequest(row, header, row.body, {
      dispatcher: row.enable_ssl_verification ? pool.verify : pool.lenient,
      timeoutMs: this.settings.timeoutMs,
      cancel: this.cancel.signal,
      allowLocal,
    });
    const cancelled = this.cancel.signal.aborted && result.status === null;
    const retry = !cancelled && result.retryable && attempt < this.settings.maxAttempts;
    try {
      const db = this.options.db();
      inTransaction(db, () => {
        insertWebHookLog(db, logRow(row, attempt, result));
        if (cancelled) return;
        if (retry) rescheduleDelivery(db, row.id, attempt, Date.now() + retryDelayMs(attempt, this.settings.retry, this.settings.random(), result.retryAfterMs));
        else deleteQueuedDelivery(db, row.id);
      });
    } catch (error) {
      // The delivery stays queued, so it is attempted again: a duplicate beats a lost event.
      this.options.log.error({ err: error, hook: row.hook_id, groupHook: row.group_hook_id, systemHook: row.system_hook_id, delivery: row.id }, 'webhook attempt could not be recorded');
      return;
    }
    const failed = result.error !== null || (result.status !== null && (result.status < 200 || result.status >= 300));
    if (failed && !cancelled) {
      this.options.log.warn(
        { hook: row.hook_id, groupHook: row.group_hook_id, systemHook: row.system_hook_id, event, attempt, status: result.status, error: result.error, willRetry: retry },
        retry ? 'webhook attempt failed; retrying' : 'webhook delivery failed',
      );
    }
  }
}

function logRow(row: DueDeliveryRow, attempt: number, result: AttemptResult) {
  return {
    hook_id: row.hook_id,
    group_hook_id: row.group_hook_id,
    system_hook_id: row.system_hook_id,
    event: row.event,
    url: result.url,
    attempt,
    request_headers: JSON.stringify(result.requestHeaders),
    request_body: row.body.length > REQUEST_BODY_LOG_LIMIT ? row.body.slice(0, REQUEST_BODY_LOG_LIMIT) : row.body,
    response_status: result.status,
    response_body: result.responseBody,
    error: result.error,
    duration_ms: result.durationMs,
    created_at: nowIso(),
  };
}
