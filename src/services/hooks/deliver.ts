import type { Dispatcher } from 'undici';
import { request } from 'undici';
import { HOOK_PAYLOAD_VERSION } from '../../version.js';
import { assertOutboundUrl } from '../local-network.js';

/** What the delivery log keeps of a request body and of a response body: enough to debug, never a huge row. */
export const REQUEST_BODY_LOG_LIMIT = 64 * 1024;
const RESPONSE_BODY_LOG_LIMIT = 16 * 1024;

/** GitLab sends its version; some receivers check the prefix. */
const HOOK_USER_AGENT = `GitLab/${HOOK_PAYLOAD_VERSION}`;

export interface HookTarget {
  readonly url: string;
  readonly token: string | null;
}

/** One attempt as the delivery log records it: headers and URL with their secrets redacted. */
export interface AttemptResult {
  readonly url: string;
  readonly requestHeaders: Record<string, string>;
  readonly status: number | null;
  readonly responseBody: string | null;
  readonly error: string | null;
  /** The receiver's Retry-After, when it sent one in seconds. */
  readonly retryAfterMs: number | null;
  /** Network failures, timeouts, 5xx and 429 are worth another attempt; 2xx, 3xx and other 4xx are final. */
  readonly retryable: boolean;
  readonly durationMs: number;
}

export interface SendOptions {
  readonly dispatcher: Dispatcher;
  readonly timeoutMs: number;
  /** Aborted when the site stops; the attempt ends at once and is not retried. */
  readonly cancel: AbortSignal;
  /** Whether the URL may name a loopback, link-local or private address (the dispatcher checks DNS names as it connects). */
  readonly allowLocal: boolean;
}

const REDACTED = '[REDACTED]';

/**
 * POSTs one webhook payload: JSON, with X-Gitlab-Event, X-Gitlab-Token when the hook has one, and
 * HTTP Basic credentials taken out of the URL (GitLab accepts `https://user:pass@host/`). The whole
 * attempt, body included, is bounded by `timeoutMs`. Redirects are not followed: a hook URL is
 * validated when saved, a Location header is not. Never throws.
 */
export async function sendHookRequest(target: HookTarget, eventHeader: string, body: string, options: SendOptions): Promise<AttemptResult> {
  const started = performance.now();
  const url = new URL(target.url);
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': HOOK_USER_AGENT,
    'X-Gitlab-Event': eventHeader,
  };
  if (target.token) headers['X-Gitlab-Token'] = target.token;
  if (url.username || url.password) {
    headers.Authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  const logged = {
    url: redactUrl(target.url),
    requestHeaders: { ...headers, ...(headers['X-Gitlab-Token'] ? { 'X-Gitlab-Token': REDACTED } : {}), ...(headers.Authorization ? { Authorization: REDACTED } : {}) },
  };
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = AbortSignal.any([options.cancel, timeout]);
  const elapsed = () => Math.round(performance.now() - started);
  try {
    assertOutboundUrl(url, options.allowLocal);
    const response = await request(url, { method: 'POST', headers, body, dispatcher: options.dispatcher, signal });
    const responseBody = await readLimited(response.body, RESPONSE_BODY_LOG_LIMIT);
    const status = response.statusCode;
    return {
      ...logged,
      status,
      responseBody,
      error: null,
      retryAfterMs: retryAfterMs(response.headers['retry-after']),
      retryable: status >= 500 || status === 429,
      durationMs: elapsed(),
    };
  } catch (error) {
    const text = options.cancel.aborted
      ? 'cancelled: the site is stopping'
      : timeout.aborted
        ? `timed out after ${options.timeoutMs} ms`
        : describeError(error);
    // A refused local address stays refused: no retry.
    const refused = (error as { code?: unknown }).code === 'ELOCALNETWORK' || (error as { cause?: { code?: unknown } }).cause?.code === 'ELOCALNETWORK';
    return { ...logged, status: null, responseBody: null, error: text, retryAfterMs: null, retryable: !options.cancel.aborted && !refused, durationMs: elapsed() };
  }
}

/** Reads at most `limit` bytes of a response; the rest is not downloaded (the connection is dropped instead). */
async function readLimited(body: AsyncIterable<Buffer> & { destroy(): unknown }, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

function retryAfterMs(header: string | string[] | undefined): number | null {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && /^\d{1,6}$/.test(value.trim()) ? Number(value) * 1000 : null;
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code ?? (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}

/** The URL as logged: a password in it is replaced. */
function redactUrl(raw: string): string {
  const url = new URL(raw);
  if (!url.password) return raw;
  url.password = REDACTED;
  return url.toString();
}
