import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Agent, request, type Dispatcher } from 'undici';
import { geoAuthorization, geoPathOf, type FencingClaims, type GeoScope } from '../signing.js';
import { FILE_BATCH_MAX_FILES, decodeFileBatch, fileBatchKey } from '../transfer-batch.js';
import type { GitItemType } from '../git-items.js';

/** One event as the primary sends it: [id, created_at, kind, table, op, row_id, payload]. */
export type WireEvent = [number, number, 'row' | 'blob' | 'heartbeat', string | null, string | null, number | null, Record<string, unknown> | null];

export interface EventsPage {
  readonly events: WireEvent[];
  readonly lastEventId: number;
  readonly lastEventAt: number | null;
  readonly oldestEventId: number | null;
  /** The serving primary's fencing epoch (absent from a version before fencing: 0) and its URL. */
  readonly epoch?: number;
  readonly primaryUrl?: string;
  /** The primary waits for its secondaries' blob syncs (synchronous replication): report them promptly. */
  readonly blobAcks?: boolean;
}

/** What a site says of itself at GET /api/v4/geo/epoch (every role serves it). */
export interface EpochInfo {
  readonly role: 'primary' | 'secondary';
  readonly url: string;
  readonly node: string;
  /** The highest epoch the site knows, and that epoch's primary. */
  readonly epoch: number;
  readonly epoch_primary_url: string;
  /** A primary's own epoch; it is fenced when `epoch` is higher. */
  readonly own_epoch: number | null;
  readonly fenced: boolean;
  /** A primary's newest event id; a secondary's cursor. */
  readonly last_event_id: number | null;
  /** The promotion that began the site's epoch, when it is a promoted primary. */
  readonly promotion: { epoch: number; from_event_id: number; previous_primary_url: string | null; node_url: string } | null;
}

/** The URL word of each file type under /api/v4/geo/transfers. */
export type TransferType = 'lfs' | 'attachment' | 'job_artifact';

/** A failed call; `status` is the primary's answer about what was asked (a file's own 404), null when there is none. */
export class PrimaryError extends Error {
  constructor(message: string, readonly status: number | null, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A file the primary sends, with the sha256 and size it vouches for. */
export interface FileTransfer {
  /** The bytes: a stream, or for a batched file the chunks already received. */
  readonly body: AsyncIterable<Buffer> | Iterable<Buffer>;
  readonly sha256: string | null;
  readonly size: number | null;
  /** Drops the bytes unread. */
  discard(): void;
}

/**
 * Files of at most this size travel in batches, their bytes held until written; larger ones stream
 * alone. Many small files cost one request between them instead of one each.
 */
const BATCHED_FILE_BYTES = 1024 * 1024;
/** Bytes one batch may bring, at most held at once. */
const BATCH_MAX_BYTES = 8 * 1024 * 1024;
/** How long files go one by one after a primary refused a batch, before batches are tried again. */
const BATCH_REFUSED_MS = 10 * 60_000;

interface BatchMember {
  readonly type: TransferType;
  readonly id: number;
  readonly size: number;
  readonly signal: AbortSignal | undefined;
  readonly resolve: (transfer: FileTransfer) => void;
  readonly reject: (error: unknown) => void;
}

/** The one site-to-site HTTP client of a secondary: every call signed with the shared secret. */
export class PrimaryClient {
  private readonly dispatcher: Dispatcher;
  /** Small file transfers asked for by the task now running (a scheduler filling its slots): one batch, sent when it ends. */
  private batch: BatchMember[] = [];
  private batchKeys = new Set<string>();
  private batchBytes = 0;
  /** Until when small files go one by one: the primary did not know the batch route (an older version, upgraded later). */
  private batchesRefusedUntil = 0;

  constructor(
    readonly primaryUrl: string,
    private readonly secret: string,
    private readonly nodeName: () => string,
    /** What this site knows of the fencing epoch: every call carries it. */
    private readonly fencing: () => FencingClaims = () => ({ epoch: 0, primary: null }),
  ) {
    // Room for every file sync the node's capacity allows beside the long-poll and status calls:
    // a smaller pool would queue transfers behind each other, below the capacity an admin set.
    this.dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
  }

  private async call(method: 'GET' | 'POST', path: string, options: { body?: unknown; timeoutMs?: number; signal?: AbortSignal; label?: string } = {}) {
    const label = options.label ?? `${method} ${path}`;
    try {
      const url = `${this.primaryUrl}/api/v4/geo${path}`;
      const response = await request(url, {
        method,
        dispatcher: this.dispatcher,
        headers: { authorization: this.authorization({ method, path: geoPathOf(new URL(url).pathname) }), 'content-type': 'application/json' },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        headersTimeout: options.timeoutMs ?? 30_000,
        bodyTimeout: options.timeoutMs ?? 30_000,
        signal: options.signal,
      });
      if (response.statusCode >= 400) {
        const text = await response.body.text();
        throw new PrimaryError(`primary answered ${response.statusCode} to ${label}: ${text.slice(0, 200)}`, response.statusCode);
      }
      return response;
    } catch (error) {
      if (error instanceof PrimaryError) throw error;
      throw new PrimaryError(`primary unreachable (${label}): ${(error as Error).message}`, null, { cause: error });
    }
  }

  /** The signed header of one call: bound to its method and path, good once (an HMAC, a few microseconds). */
  private authorization(scope: GeoScope): string {
    return geoAuthorization(this.secret, this.nodeName(), scope, Date.now(), this.fencing());
  }

  /** Streams the primary's snapshot to `file`; returns the last event id it contains and the primary's epoch. */
  async downloadSnapshot(file: string): Promise<{ lastEventId: number; epoch: number }> {
    const response = await this.call('GET', '/snapshot', { timeoutMs: 600_000 });
    const lastEventId = Number(response.headers['x-geo-last-event-id']);
    const epoch = Number(response.headers['x-geo-epoch'] ?? 0);
    await pipeline(response.body, createWriteStream(file));
    if (!Number.isInteger(lastEventId)) throw new PrimaryError('snapshot without X-Geo-Last-Event-Id', response.statusCode);
    return { lastEventId, epoch: Number.isSafeInteger(epoch) ? epoch : 0 };
  }

  /** What the site says of itself (role, epoch, position); the call tells it this site's epoch too. */
  async epochInfo(timeoutMs = 5_000): Promise<EpochInfo> {
    const response = await this.call('GET', '/epoch', { timeoutMs });
    return (await response.body.json()) as EpochInfo;
  }

  /**
   * Asks the primary to refuse writes for `leaseMs` (a planned promotion of this site), or to lift
   * that (`leaseMs` 0); answers its newest event id once the writes in flight have ended.
   */
  async freeze(leaseMs: number): Promise<{ last_event_id: number; drained: boolean }> {
    const response = await this.call('POST', '/freeze', { body: { lease_ms: leaseMs }, timeoutMs: 15_000 });
    return (await response.body.json()) as { last_event_id: number; drained: boolean };
  }


  /** Long-polls for events after `afterId`: the primary answers at once when some exist, else after `waitMs`. */
  async events(afterId: number, waitMs: number, signal?: AbortSignal, blobsPendingSince?: number | null): Promise<EventsPage> {
    const blobs = blobsPendingSince === undefined ? '' : `&blobs_pending_since=${blobsPendingSince ?? 'none'}`;
    const response = await this.call('GET', `/events?after=${afterId}&wait_ms=${waitMs}${blobs}`, { timeoutMs: waitMs + 30_000, signal });
    return (await response.body.json()) as EventsPage;
  }

  async register(url: string): Promise<{ id: number }> {
    const response = await this.call('POST', '/nodes', { body: { name: this.nodeName(), url } });
    return (await response.body.json()) as { id: number };
  }

  async reportStatus(status: object): Promise<void> {
    const response = await this.call('POST', '/status', { body: status });
    await response.body.dump();
  }

  /**
   * One file from the primary with the sha256 and size it vouches for; `expectedSize` is what the
   * replicated row records. A small file joins the batch of the running task (GET /transfers?files=...),
   * a larger one streams from GET /transfers/:type/:id. A file the primary lacks is a PrimaryError
   * with status 404 (geo_code FILE_NOT_FOUND) either way.
   */
  transfer(type: TransferType, id: number, expectedSize: number, signal?: AbortSignal): Promise<FileTransfer> {
    if (expectedSize > BATCHED_FILE_BYTES || Date.now() < this.batchesRefusedUntil) return this.transferAlone(type, id, signal);
    return new Promise((resolve, reject) => this.joinBatch({ type, id, size: expectedSize, signal, resolve, reject }));
  }

  private async transferAlone(type: TransferType, id: number, signal?: AbortSignal): Promise<FileTransfer> {
    const response = await this.call('GET', `/transfers/${type}/${id}`, { timeoutMs: 120_000, signal });
    // undici reports a body destroyed before its end (a caller dropping it unread) as an 'error'
    // event: without a listener that would end the process. Readers still get errors their own way.
    response.body.on('error', () => undefined);
    const sha256 = response.headers['x-geo-sha256'];
    const size = Number(response.headers['content-length']);
    return {
      body: response.body,
      sha256: typeof sha256 === 'string' ? sha256 : null,
      size: Number.isSafeInteger(size) ? size : null,
      discard: () => response.body.destroy(),
    };
  }

  /** Syncs start together (a scheduler fills its free slots in one go), so their files share a request. */
  private joinBatch(member: BatchMember): void {
    const key = fileBatchKey(member.type, member.id);
    if (this.batchKeys.has(key) || this.batch.length === FILE_BATCH_MAX_FILES || this.batchBytes + member.size > BATCH_MAX_BYTES) this.sendBatch();
    if (this.batch.length === 0) queueMicrotask(() => this.sendBatch());
    this.batch.push(member);
    this.batchKeys.add(key);
    this.batchBytes += member.size;
  }

  private sendBatch(): void {
    const members = this.batch;
    this.batch = [];
    this.batchKeys = new Set();
    this.batchBytes = 0;
    if (members.length > 0) void this.fetchBatch(members);
  }

  /**
   * One batch request: each member gets its part as soon as it has arrived, or the file's own 404.
   * A member whose sync is interrupted is let go at once (the others go on; the request stops when
   * none is left). From a primary without the batch route, each member's file is fetched alone.
   * When the batch as a whole fails otherwise, every member left fails with its text and no status:
   * that is no answer about any one file.
   */
  private async fetchBatch(members: readonly BatchMember[]): Promise<void> {
    const waiting = new Map(members.map((member) => [fileBatchKey(member.type, member.id), member]));
    const abort = new AbortController();
    const onAbort = new Map<string, () => void>();
    const settle = (key: string, outcome: { transfer: FileTransfer } | { error: unknown } | { alone: true }) => {
      const member = waiting.get(key);
      if (!member) return;
      waiting.delete(key);
      member.signal?.removeEventListener('abort', onAbort.get(key)!);
      if ('transfer' in outcome) member.resolve(outcome.transfer);
      else if ('error' in outcome) member.reject(outcome.error);
      else this.transferAlone(member.type, member.id, member.signal).then(member.resolve, member.reject);
    };
    for (const [key, member] of waiting) {
      if (!member.signal) continue;
      const listener = () => {
        settle(key, { error: member.signal!.reason });
        if (waiting.size === 0) abort.abort();
      };
      onAbort.set(key, listener);
      member.signal.addEventListener('abort', listener, { once: true });
      if (member.signal.aborted) listener();
    }
    const label = `GET /transfers (a batch of ${members.length} files)`;
    try {
      const response = await this.call('GET', `/transfers?files=${[...waiting.keys()].join(',')}`, { timeoutMs: 120_000, signal: abort.signal, label });
      response.body.on('error', () => undefined);
      const wanted = (header: { type: string; id: number; size: number }) => waiting.get(fileBatchKey(header.type, header.id))?.size === header.size;
      for await (const { header, chunks } of decodeFileBatch(response.body, wanted)) {
        const key = fileBatchKey(header.type, header.id);
        if ('status' in header) {
          const body = JSON.stringify({ message: header.message, geo_code: header.geo_code });
          settle(key, { error: new PrimaryError(`primary answered ${header.status} to GET /transfers/${header.type}/${header.id}: ${body}`, header.status) });
        } else {
          settle(key, { transfer: { body: chunks, sha256: header.sha256, size: header.size, discard: () => undefined } });
        }
      }
      if (waiting.size > 0) throw new Error(`the primary's answer lacks ${waiting.size} of the files`);
    } catch (error) {
      if (waiting.size === 0) return;
      if (error instanceof PrimaryError && error.status === 404) {
        // The primary answers every batch it knows with 200 (a missing file is a part): this one
        // predates batches. Its files, and the next ones for a while, go one by one.
        this.batchesRefusedUntil = Date.now() + BATCH_REFUSED_MS;
        for (const key of [...waiting.keys()]) settle(key, { alone: true });
        return;
      }
      const message = error instanceof PrimaryError ? error.message : `transfer batch failed (${label}): ${(error as Error).message}`;
      const failure = new PrimaryError(message, null, { cause: error });
      for (const key of [...waiting.keys()]) settle(key, { error: failure });
    }
  }

  /**
   * What the primary's copy of a repository or wiki has in HEAD: the ref it names (unborn
   * included) or a detached commit, as the HEAD file holds it. A fetch never brings HEAD.
   */
  async repositoryHead(type: GitItemType, projectId: number, signal?: AbortSignal): Promise<string> {
    const response = await this.call('GET', `/git/${type}/${projectId}.git/HEAD`, { signal });
    const head = (await response.body.text()).trim();
    const target = head.startsWith('ref: ') ? head.slice('ref: '.length) : head;
    // It ends up as an argument of git: a ref name or an object id, nothing that could read as an option.
    if (!/^refs\/[^\s\0]+$|^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(target)) {
      throw new PrimaryError(`primary answered GET /git/${type}/${projectId}.git/HEAD with neither a ref nor an object id: ${head.slice(0, 200)}`, response.statusCode);
    }
    return target;
  }

  /**
   * Where git fetches a repository or wiki from, and the environment that signs it: the header
   * goes through GIT_CONFIG_* so the token never shows in a process list. Sign afresh per command.
   */
  gitRemote(type: GitItemType, projectId: number): { url: string; env: Record<string, string> } {
    const url = `${this.primaryUrl}/api/v4/geo/git/${type}/${projectId}.git`;
    // One fetch is several requests (info/refs, upload-pack): the token covers this repository's paths.
    const scope = { method: '*', path: `${geoPathOf(new URL(url).pathname)}/`, prefix: true };
    return {
      url,
      env: {
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: 'http.extraHeader',
        GIT_CONFIG_VALUE_0: `Authorization: ${geoAuthorization(this.secret, this.nodeName(), scope, Date.now(), this.fencing())}`,
      },
    };
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}
