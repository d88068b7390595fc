import { createWriteStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Agent, request, type Dispatcher } from 'undici';
import { geoAuthorization } from '../signing.js';

/** One event as the primary sends it: [id, created_at, kind, table, op, row_id, payload]. */
export type WireEvent = [number, number, 'row' | 'blob' | 'heartbeat', string | null, string | null, number | null, Record<string, unknown> | null];

export interface EventsPage {
  readonly events: WireEvent[];
  readonly lastEventId: number;
  readonly lastEventAt: number | null;
  readonly oldestEventId: number | null;
}

/** The URL word of each file type under /api/v4/geo/transfers. */
export type TransferType = 'lfs' | 'attachment' | 'job_artifact';

export class PrimaryError extends Error {
  constructor(message: string, readonly status: number | null, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The one site-to-site HTTP client of a secondary: every call signed with the shared secret. */
export class PrimaryClient {
  private readonly dispatcher: Dispatcher;
  private signed = { second: -1, node: '', authorization: '' };

  constructor(private readonly primaryUrl: string, private readonly secret: string, private readonly nodeName: () => string) {
    // Room for every file sync the node's capacity allows beside the long-poll and status calls:
    // a smaller pool would queue transfers behind each other, below the capacity an admin set.
    this.dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
  }

  private async call(method: 'GET' | 'POST', path: string, options: { body?: unknown; timeoutMs?: number; signal?: AbortSignal } = {}) {
    try {
      const response = await request(`${this.primaryUrl}/api/v4/geo${path}`, {
        method,
        dispatcher: this.dispatcher,
        headers: { authorization: this.authorization(), 'content-type': 'application/json' },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        headersTimeout: options.timeoutMs ?? 30_000,
        bodyTimeout: options.timeoutMs ?? 30_000,
        signal: options.signal,
      });
      if (response.statusCode >= 400) {
        const text = await response.body.text();
        throw new PrimaryError(`primary answered ${response.statusCode} to ${method} ${path}: ${text.slice(0, 200)}`, response.statusCode);
      }
      return response;
    } catch (error) {
      if (error instanceof PrimaryError) throw error;
      throw new PrimaryError(`primary unreachable (${method} ${path}): ${(error as Error).message}`, null, { cause: error });
    }
  }

  /**
   * The signed header of a call. Tokens carry whole seconds, so within one second a new signature
   * would be the same bytes: a burst of small transfers signs once, not once per file.
   */
  private authorization(): string {
    const second = Math.floor(Date.now() / 1000);
    const node = this.nodeName();
    if (this.signed.second !== second || this.signed.node !== node) this.signed = { second, node, authorization: geoAuthorization(this.secret, node, second * 1000) };
    return this.signed.authorization;
  }

  /** Streams the primary's snapshot to `file`; returns the last event id it contains. */
  async downloadSnapshot(file: string): Promise<number> {
    const response = await this.call('GET', '/snapshot', { timeoutMs: 600_000 });
    const lastEventId = Number(response.headers['x-geo-last-event-id']);
    await pipeline(response.body, createWriteStream(file));
    if (!Number.isInteger(lastEventId)) throw new PrimaryError('snapshot without X-Geo-Last-Event-Id', response.statusCode);
    return lastEventId;
  }

  /** Long-polls for events after `afterId`: the primary answers at once when some exist, else after `waitMs`. */
  async events(afterId: number, waitMs: number, signal?: AbortSignal): Promise<EventsPage> {
    const response = await this.call('GET', `/events?after=${afterId}&wait_ms=${waitMs}`, { timeoutMs: waitMs + 30_000, signal });
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
   * Streams one file from GET /transfers/:type/:id with the sha256 and size the primary vouches
   * for. A file the primary lacks is a PrimaryError with status 404 (geo_code FILE_NOT_FOUND).
   */
  async transfer(type: TransferType, id: number, signal?: AbortSignal): Promise<{ body: Readable; sha256: string | null; size: number | null }> {
    const response = await this.call('GET', `/transfers/${type}/${id}`, { timeoutMs: 120_000, signal });
    // undici reports a body destroyed before its end (a caller dropping it unread) as an 'error'
    // event: without a listener that would end the process. Readers still get errors their own way.
    response.body.on('error', () => undefined);
    const sha256 = response.headers['x-geo-sha256'];
    const size = Number(response.headers['content-length']);
    return { body: response.body, sha256: typeof sha256 === 'string' ? sha256 : null, size: Number.isSafeInteger(size) ? size : null };
  }

  /**
   * Where git fetches a repository or wiki from, and the environment that signs it: the header
   * goes through GIT_CONFIG_* so the token never shows in a process list. Sign afresh per command.
   */
  gitRemote(type: 'repository' | 'wiki', projectId: number): { url: string; env: Record<string, string> } {
    return {
      url: `${this.primaryUrl}/api/v4/geo/git/${type}/${projectId}.git`,
      env: { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraHeader', GIT_CONFIG_VALUE_0: `Authorization: ${geoAuthorization(this.secret, this.nodeName())}` },
    };
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
  }
}
