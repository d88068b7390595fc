import { syncCaptureTriggers } from '../db/capture.js';
import { inTransaction, prepare, type Db } from '../db/connection.js';
import { AppError } from '../errors.js';
import { nowIso } from '../storage/clock.js';
import type { AgentState } from './agent/agent.js';
import { readCursor, type Cursor } from './agent/applier.js';
import type { SiteContext } from '../site-context.js';
import { exchangeEpochs } from './peers.js';
import type { PrimaryClient } from './agent/primary-client.js';
import type { BlobCounts, BlobKind } from './status.js';

/** How a promotion is asked for: planned (waits until this site holds everything) or forced. */
export interface PromoteOptions {
  readonly force: boolean;
  /** How long a planned promotion may wait for this site to catch up. */
  readonly timeoutMs: number;
  /** Who asked: a username, or 'cli'. */
  readonly by: string;
  /** The epoch to take (the etcd coordinator's, won in etcd); default: the highest known plus one. */
  readonly epoch?: number;
}

/** One progress line of a planned promotion. */
export interface PromotionProgress {
  readonly phase: 'catching up' | 'primary frozen, final catch-up' | 'promoting';
  readonly cursor_last_event_id: number | null;
  readonly primary_last_event_id: number | null;
  readonly blobs_unsynced: number;
  readonly elapsed_ms: number;
}

/** What a promotion did, and for a forced one what this site lacks of the old primary. */
export interface PromotionReport {
  readonly epoch: number;
  readonly node: string;
  readonly url: string;
  readonly previous_primary_url: string;
  readonly forced: boolean;
  readonly promoted_by: string;
  readonly promoted_at: string;
  /** The last event of the old primary applied here, and its time: writes after it are not here. */
  readonly last_applied_event_id: number;
  readonly last_applied_event_at: string | null;
  /** The old primary's newest event as last seen (a forced promotion cannot know of later ones). */
  readonly primary_last_event_id: number | null;
  readonly primary_last_seen_at: string | null;
  /** Events of the old primary known to exist and not applied here (at least this many were lost). */
  readonly missing_events: number;
  /** Blobs the replicated database lists that are not synced here, per kind. */
  readonly unsynced_blobs: Record<BlobKind, number>;
  readonly unsynced_blobs_total: number;
  /** Of those, the ones the old primary lacked itself (missing_on_primary). */
  readonly missing_on_primary: number;
  readonly waited_ms: number;
  /** The sites told of the new epoch (announced at once; the others learn at their next contact). */
  readonly told: string[];
  readonly not_told: string[];
}

/** What the promotion reads from the secondary it promotes. */
export interface PromotionSource {
  readonly client: PrimaryClient;
  readonly agent: AgentState;
  cursor(): Cursor | null;
  blobCounts(): Record<BlobKind, BlobCounts>;
  /** Items the primary itself lacks (its file is gone): no promotion can wait for them. */
  missingOnPrimary(): number;
  backfill(): Promise<void>;
}

const FREEZE_LEASE_MS = 15_000;
const POLL_MS = 100;

const unsyncedOf = (counts: Record<BlobKind, BlobCounts>) =>
  Object.fromEntries(Object.entries(counts).map(([kind, c]) => [kind, Math.max(0, c.count - c.synced)])) as Record<BlobKind, number>;
const total = (unsynced: Record<BlobKind, number>) => Object.values(unsynced).reduce((sum, n) => sum + n, 0);

/**
 * The waiting half of a planned promotion (issue 18, item 1): catch up while the primary still
 * takes writes, then freeze it (a lease, renewed while this runs, lifted if this gives up) so its
 * newest event is final, and wait until the cursor has reached it and every blob the replicated
 * database lists is synced. Bounded by `timeoutMs`; refuses with what is missing otherwise.
 * Returns the frozen primary's last event id; the caller then switches the site to primary.
 */
export async function waitUntilComplete(
  source: PromotionSource,
  options: PromoteOptions,
  progress: (line: PromotionProgress) => void,
): Promise<{ primaryLastEventId: number; waitedMs: number; release: () => Promise<void> }> {
  const started = Date.now();
  const deadline = started + options.timeoutMs;
  const report = (phase: PromotionProgress['phase'], primaryLast: number | null) => {
    const unsynced = total(unsyncedOf(source.blobCounts()));
    const line = { phase, cursor_last_event_id: source.cursor()?.lastEventId ?? null, primary_last_event_id: primaryLast, blobs_unsynced: unsynced, elapsed_ms: Date.now() - started };
    progress(line);
    return line;
  };
  let info;
  try {
    info = await source.client.epochInfo(5_000);
  } catch (error) {
    throw new AppError('conflict', `The primary ${source.client.primaryUrl} cannot be reached (${(error as Error).message}): a planned promotion needs it. Use force to promote with what this site has`);
  }
  if (info.fenced || info.role !== 'primary') throw new AppError('conflict', `${source.client.primaryUrl} is not an active primary (role ${info.role}${info.fenced ? ', fenced' : ''}): use force, or follow the current primary ${info.epoch_primary_url}`);
  // 1. Catch up while the primary still takes writes, so the freeze below is short.
  let lastProgress = 0;
  // Every blob the primary has: what it lacks itself can never sync, here or anywhere.
  const caughtUp = (target: number) => (source.cursor()?.lastEventId ?? -1) >= target && total(unsyncedOf(source.blobCounts())) <= source.missingOnPrimary();
  let target = info.last_event_id ?? 0;
  while (Date.now() < deadline && !caughtUp(target)) {
    if (Date.now() - lastProgress >= 1000) {
      lastProgress = Date.now();
      report('catching up', target);
      target = (await source.client.epochInfo(5_000).catch(() => null))?.last_event_id ?? target;
    }
    await sleep(POLL_MS);
  }
  // 2. Freeze: the primary refuses writes and answers its final position once the writes in flight ended.
  const frozen = await source.client.freeze(FREEZE_LEASE_MS).catch((error: Error) => {
    throw new AppError('conflict', `The primary ${source.client.primaryUrl} could not be frozen for the promotion (${error.message}); nothing changed`);
  });
  const release = async () => void (await source.client.freeze(0).catch(() => undefined));
  let renewedAt = Date.now();
  await source.backfill();
  while (!caughtUp(frozen.last_event_id)) {
    if (Date.now() >= deadline) {
      await release();
      const line = report('primary frozen, final catch-up', frozen.last_event_id);
      throw new AppError(
        'conflict',
        `This site did not catch up within ${options.timeoutMs} ms: cursor at event ${line.cursor_last_event_id} of the primary's ${frozen.last_event_id}, ` +
          `${line.blobs_unsynced} blob(s) not synced. The primary takes writes again; retry with a longer timeout, or use force`,
      );
    }
    if (Date.now() - renewedAt >= FREEZE_LEASE_MS / 3) {
      renewedAt = Date.now();
      await source.client.freeze(FREEZE_LEASE_MS).catch(() => undefined);
    }
    if (Date.now() - lastProgress >= 1000) {
      lastProgress = Date.now();
      report('primary frozen, final catch-up', frozen.last_event_id);
    }
    await sleep(POLL_MS);
  }
  report('promoting', frozen.last_event_id);
  return { primaryLastEventId: frozen.last_event_id, waitedMs: Date.now() - started, release };
}

/**
 * Promotes the secondary behind `ctx` (issue 18, item 1): planned, it first waits until it holds
 * everything (waitUntilComplete); then replication stops, so the cursor read is final; in one
 * transaction the event log goes on from it and the promotion is recorded as the new primary's
 * first events; the new role and epoch are persisted before the site switches to them, and its
 * epoch is announced to every node.
 */
export async function promoteSecondary(
  ctx: SiteContext,
  deps: { source: PromotionSource; primaryUrl: string; stopReplication: () => Promise<void> },
  options: PromoteOptions,
  progress: (line: PromotionProgress) => void,
): Promise<PromotionReport> {
  if (options.epoch !== undefined && options.epoch <= ctx.fence.epoch) throw new AppError('conflict', `Epoch ${options.epoch} is not above this site's known epoch ${ctx.fence.epoch}`);
  const waited = options.force ? { waitedMs: 0 } : await waitUntilComplete(deps.source, options, progress);
  await deps.stopReplication();
  const lacking = whatIsLacking(deps.source, readCursor(ctx.db));
  const epoch = options.epoch ?? ctx.fence.epoch + 1;
  const report = {
    epoch,
    node: ctx.nodeName,
    url: ctx.externalUrl,
    previous_primary_url: deps.primaryUrl,
    forced: options.force,
    promoted_by: options.by,
    promoted_at: nowIso(),
    ...lacking,
    waited_ms: waited.waitedMs,
  };
  // The database becomes a primary's, promotion recorded, before the role file says primary: a
  // crash before this transaction leaves a secondary with its cursor, one between it and the role
  // file a secondary without a cursor (it re-bootstraps), and one after it a primary that has its
  // promotion record (followers continue from it) and announces its epoch as it starts.
  inTransaction(ctx.db, () => {
    syncCaptureTriggers(ctx.db, true);
    startOwnLog(ctx.db, lacking.last_applied_event_id);
    recordPromotion(ctx.db, report);
  });
  try {
    ctx.fence.transition({ role: 'primary', primaryUrl: null, epoch, epochPrimaryUrl: null, ownEpoch: epoch, reason: 'promoted' });
  } catch (error) {
    // The role file could not be written: the site stays the secondary a restart would make it, and
    // replicates again at once rather than at its next start (without a cursor, it re-bootstraps).
    ctx.log.error({ err: error }, 'geo: the promotion could not record the new role; this site stays a secondary and copies the primary again');
    await ctx.switchRole();
    throw new AppError('unavailable', `The promotion could not record the new role in geo-role.json (${(error as Error).message}): this site stays a secondary and copies the primary again`, { cause: error });
  }
  await ctx.switchRole();
  ctx.log.warn({ ...report }, 'geo: this site was promoted to primary');
  const { told, notTold } = await exchangeEpochs(ctx, 2_000);
  return { ...report, told, not_told: notTold };
}

/** What this site lacks of the old primary, for the report (and, for a forced promotion, the record). */
export function whatIsLacking(
  source: PromotionSource,
  cursor: Cursor | null,
): Pick<PromotionReport, 'last_applied_event_id' | 'last_applied_event_at' | 'primary_last_event_id' | 'primary_last_seen_at' | 'missing_events' | 'unsynced_blobs' | 'unsynced_blobs_total' | 'missing_on_primary'> {
  const applied = cursor?.lastEventId ?? 0;
  const primaryLast = source.agent.primaryLastEventId;
  const unsynced = unsyncedOf(source.blobCounts());
  return {
    last_applied_event_id: applied,
    last_applied_event_at: cursor?.lastEventAt ? new Date(cursor.lastEventAt).toISOString() : null,
    primary_last_event_id: primaryLast,
    primary_last_seen_at: source.agent.primaryLastSeenAt ? new Date(source.agent.primaryLastSeenAt).toISOString() : null,
    missing_events: primaryLast === null ? 0 : Math.max(0, primaryLast - applied),
    unsynced_blobs: unsynced,
    unsynced_blobs_total: total(unsynced),
    missing_on_primary: source.missingOnPrimary(),
  };
}

/**
 * Makes the promoted site's database a primary's: its event log continues the old primary's ids
 * after the last event applied (so a secondary at that same event can follow without a snapshot),
 * the cursor goes, and the promotion and the new roles of the nodes are written as its first events.
 */
export function startOwnLog(db: Db, fromEventId: number): void {
  inTransaction(db, () => {
    prepare(db, 'DELETE FROM geo_event_log').run();
    const updated = prepare(db, "UPDATE sqlite_sequence SET seq = ? WHERE name = 'geo_event_log'").run(fromEventId).changes;
    if (!updated) prepare(db, "INSERT INTO sqlite_sequence (name, seq) VALUES ('geo_event_log', ?)").run(fromEventId);
    prepare(db, 'DELETE FROM geo_cursor').run();
  });
}

/** Records the promotion and marks this node the primary (captured: the site's first events as primary). */
export function recordPromotion(db: Db, report: Omit<PromotionReport, 'told' | 'not_told'>): void {
  inTransaction(db, () => {
    prepare(
      db,
      `INSERT INTO geo_promotions (epoch, node_name, node_url, previous_primary_url, promoted_by, forced, from_event_id, from_event_at, missing_events, unsynced_blobs, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      report.epoch,
      report.node,
      report.url,
      report.previous_primary_url,
      report.promoted_by,
      report.forced ? 1 : 0,
      report.last_applied_event_id,
      report.last_applied_event_at ? Date.parse(report.last_applied_event_at) : null,
      report.forced ? report.missing_events : null,
      report.unsynced_blobs_total,
      report.promoted_at,
    );
    const now = nowIso();
    prepare(db, 'UPDATE geo_nodes SET "primary" = 0, updated_at = ? WHERE "primary" = 1 AND name <> ?').run(now, report.node);
  });
}

/** The newest promotion recorded in the replicated database, or null when the first primary still is. */
export function latestPromotion(db: Db): PromotionRow | null {
  return (prepare(db, 'SELECT * FROM geo_promotions ORDER BY epoch DESC LIMIT 1').get() as PromotionRow | undefined) ?? null;
}

/** Every promotion, oldest first: the role history shown by status. */
export function promotionHistory(db: Db, limit = 20): PromotionRow[] {
  return (prepare(db, 'SELECT * FROM geo_promotions ORDER BY epoch DESC LIMIT ?').all(limit) as PromotionRow[]).reverse();
}

export interface PromotionRow {
  id: number;
  epoch: number;
  node_name: string;
  node_url: string;
  previous_primary_url: string | null;
  promoted_by: string;
  forced: number;
  from_event_id: number;
  from_event_at: number | null;
  missing_events: number | null;
  unsynced_blobs: number;
  created_at: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
