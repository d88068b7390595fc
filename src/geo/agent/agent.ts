import type { Logger } from 'pino';
import { backoffMs, type RetryPolicy } from '../../backoff.js';
import { prepare, type Db } from '../../db/connection.js';
import { Applier, GapError, readCursor, type Cursor } from './applier.js';
import { findGeoNode } from '../nodes.js';
import { prepareSnapshot } from './bootstrap.js';
import { PrimaryError, type PrimaryClient } from './primary-client.js';
import type { GeoSyncMetrics } from '../../observability/metrics.js';
import type { Fence } from '../fence.js';
import type { BlobEvent } from '../blobs.js';

const LONG_POLL_MS = 10_000;
/**
 * Capped short: forwarded writes wait on this loop, so it must notice a returning primary quickly.
 * No jitter: at 2 s apart, secondaries that retry together cost a recovering primary little.
 */
const BACKOFF: RetryPolicy = { baseMs: 400, capMs: 2_000 };

/** The primary serves a lower epoch than this site knows. */
class FencedOutError extends Error {}

/** What the agent knows, for status and metrics. */
export interface AgentState {
  bootstrapped: boolean;
  nodeId: number | null;
  primaryLastEventId: number | null;
  primaryLastEventAt: number | null;
  /** When the primary last answered with its position. */
  primaryLastSeenAt: number | null;
  /** Set while the primary serves an epoch lower than one this site knows: its events are refused. */
  fencedOut: string | null;
  lastError: string | null;
  lastErrorAt: number | null;
  /** The cursor fell behind the primary's pruned horizon; a re-bootstrap is under way. */
  behindPrunedHorizon: boolean;
  eventsApplied: number;
}

export interface AgentHost {
  readonly dataDir: string;
  readonly externalUrl: () => string;
  readonly log: Logger;
  /** The open database. */
  db(): Db;
  /** Closes the live database, moves the prepared snapshot in its place and reopens it. */
  swapDatabase(prepared: string): Promise<void>;
  readonly metrics: GeoSyncMetrics;
  /** The site's fencing epoch: events and snapshots of a lower epoch are refused. */
  readonly fence: Fence;
  /**
   * Called after every applied batch, so waiting requests can re-check the cursor; `blobs` when
   * the batch held blob events or was a bootstrap, so the registry may have new work; `tables`
   * names the tables the batch's row events changed (empty for a bootstrap: a new database).
   */
  onApplied(cursor: Cursor, blobs: boolean, tables: ReadonlySet<string>): void;
  /** Whether this site keeps a blob (selective sync). */
  holds(event: BlobEvent): boolean;
  /** The oldest unsynced blob event's time, null when all are synced: reported with every long poll. */
  blobsPendingSince(): number | null;
}

/**
 * The secondary's replication loop: bootstrap from a snapshot when empty or behind the pruned
 * horizon, register as a geo node, then tail the primary's log and apply it batch by batch.
 * Errors back off exponentially and are kept for the status report, never swallowed.
 */
export class GeoAgent {
  readonly state: AgentState = {
    bootstrapped: false,
    nodeId: null,
    primaryLastEventId: null,
    primaryLastEventAt: null,
    primaryLastSeenAt: null,
    fencedOut: null,
    lastError: null,
    lastErrorAt: null,
    behindPrunedHorizon: false,
    eventsApplied: 0,
  };
  private applier: Applier | null = null;
  private stopped = false;
  private readonly abort = new AbortController();
  private loop: Promise<void> | null = null;
  /** The long poll waiting now; a nudge ends it so the next one reports fresh positions. */
  private poll: AbortController | null = null;
  /** The primary's last page asked for blob sync reports (it runs synchronous replication). */
  private blobAcks = false;

  constructor(private readonly host: AgentHost, readonly client: PrimaryClient) {
    this.state.bootstrapped = readCursor(host.db()) !== null;
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    await this.loop;
    await this.client.close();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      try {
        // Registered first, so the primary's pruning counts this node before its snapshot is even taken.
        if (this.state.nodeId === null) this.state.nodeId = (await this.client.register(this.host.externalUrl())).id;
        if (!this.state.bootstrapped || this.state.behindPrunedHorizon || this.host.fence.current.bootstrapRequired) await this.bootstrap();
        await this.pullOnce();
        this.state.lastError = null;
        failures = 0;
      } catch (error) {
        if (this.stopped) return;
        failures++;
        this.state.lastError = (error as Error).message;
        this.state.lastErrorAt = Date.now();
        this.host.metrics.replicationErrors.inc({ reason: errorReason(error) });
        this.host.log.warn({ err: error, failures }, 'geo agent: replication step failed');
        await this.sleep(backoffMs(failures, BACKOFF));
      }
    }
  }

  private async pullOnce(): Promise<void> {
    const cursor = readCursor(this.host.db())!;
    if (this.resyncRequested(cursor)) {
      this.host.log.info('geo agent: a repair asked for a full re-sync');
      return this.bootstrap();
    }
    const poll = new AbortController();
    this.poll = poll;
    const onStop = () => poll.abort();
    this.abort.signal.addEventListener('abort', onStop);
    let page;
    try {
      page = await this.client.events(cursor.lastEventId, LONG_POLL_MS, poll.signal, this.blobAcks ? this.host.blobsPendingSince() : undefined);
    } catch (error) {
      // Nudged: a blob sync finished, and the primary hears of it with the next poll at once.
      if (poll.signal.aborted && !this.stopped) return;
      throw error;
    } finally {
      this.poll = null;
      this.abort.signal.removeEventListener('abort', onStop);
    }
    this.checkEpoch(page.epoch ?? 0, page.primaryUrl ?? this.client.primaryUrl);
    this.blobAcks = page.blobAcks === true;
    this.state.primaryLastEventId = page.lastEventId;
    this.state.primaryLastEventAt = page.lastEventAt;
    this.state.primaryLastSeenAt = Date.now();
    // Events after the cursor exist (lastEventId) but the oldest kept is past the next one, or the
    // log is empty: they were pruned, and only a snapshot can bring this site back.
    const oldestKept = page.oldestEventId ?? page.lastEventId + 1;
    if (page.lastEventId > cursor.lastEventId && oldestKept > cursor.lastEventId + 1) {
      this.state.behindPrunedHorizon = true;
      throw new GapError(
        `cursor ${cursor.lastEventId} is behind the primary's pruned horizon (oldest event ${page.oldestEventId ?? 'none: the log is empty'}, newest ${page.lastEventId}); re-bootstrapping`,
      );
    }
    if (page.events.length && page.events[0][0] !== cursor.lastEventId + 1) {
      throw new GapError(`primary sent event ${page.events[0][0]} after cursor ${cursor.lastEventId}`);
    }
    this.applier ??= new Applier(this.host.db(), (event) => this.host.holds(event));
    this.applier.apply(page.events);
    this.state.eventsApplied += page.events.length;
    // Counted per kind, not per event: prom-client hashes the labels on every call.
    const kinds = new Map<string, number>();
    const tables = new Set<string>();
    for (const event of page.events) {
      kinds.set(event[2], (kinds.get(event[2]) ?? 0) + 1);
      if (event[2] === 'row' && event[3] !== null) tables.add(event[3]);
    }
    for (const [kind, count] of kinds) this.host.metrics.eventsApplied.inc({ kind }, count);
    if (page.events.length) this.host.onApplied(readCursor(this.host.db())!, kinds.has('blob'), tables);
  }

  /**
   * POST /geo_nodes/:id/repair sets resync_requested_at on this node's row, which replicates here;
   * a value this database has not answered yet asks for a fresh snapshot. Compared for equality,
   * so the two sites' clocks never matter.
   */
  private resyncRequested(cursor: Cursor): boolean {
    if (this.state.nodeId === null) return false;
    const requested = findGeoNode(this.host.db(), this.state.nodeId)?.resync_requested_at ?? null;
    return requested !== null && requested !== cursor.resyncHandled;
  }

  /**
   * Issue 18, item 2: no secondary applies events (or a snapshot) of an epoch lower than one it
   * knows; a higher one is learned. The refusal stays in the status until the site follows the
   * current primary.
   */
  private checkEpoch(epoch: number, primaryUrl: string): void {
    const fence = this.host.fence;
    if (epoch < fence.epoch) {
      this.state.fencedOut =
        `the primary ${this.client.primaryUrl} serves epoch ${epoch}, but epoch ${fence.epoch} is known (primary ${fence.epochPrimaryUrl ?? 'unknown'}): ` +
        `its events are refused; run geoforge geo follow ${fence.epochPrimaryUrl ?? '<the new primary>'}`;
      throw new FencedOutError(this.state.fencedOut);
    }
    fence.learn(epoch, primaryUrl, this.client.primaryUrl);
    this.state.fencedOut = null;
  }

  /** Ends the waiting long poll, so the primary learns this site's blob sync state now (synchronous replication). */
  nudge(): void {
    if (this.blobAcks) this.poll?.abort();
  }

  /** Forgets the node id, so the next step registers again (the node was deleted on the primary). */
  forgetNode(): void {
    this.state.nodeId = null;
  }

  private async bootstrap(): Promise<void> {
    this.host.log.info('geo agent: bootstrapping from the primary snapshot');
    const prepared = await prepareSnapshot(this.client, this.host.dataDir);
    this.checkEpoch(prepared.epoch, this.client.primaryUrl);
    this.applier = null;
    await this.host.swapDatabase(prepared.file);
    // The snapshot holds this node's row as of now: any repair requested so far is answered by it.
    const requested = this.state.nodeId === null ? null : (findGeoNode(this.host.db(), this.state.nodeId)?.resync_requested_at ?? null);
    prepare(this.host.db(), 'UPDATE geo_cursor SET resync_handled = ? WHERE id = 1').run(requested);
    this.state.bootstrapped = true;
    this.state.behindPrunedHorizon = false;
    this.host.fence.bootstrapDone();
    this.host.log.info({ last_event_id: prepared.lastEventId }, 'geo agent: bootstrapped');
    this.host.onApplied(readCursor(this.host.db())!, true, new Set());
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.abort.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

/** The metric label of a failed replication step. */
function errorReason(error: unknown): 'unreachable' | 'http' | 'gap' | 'fenced' | 'other' {
  if (error instanceof FencedOutError) return 'fenced';
  if (error instanceof GapError) return 'gap';
  if (error instanceof PrimaryError) return error.status === null ? 'unreachable' : 'http';
  return 'other';
}
