import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';
import type { GeoCoordinatorConfig } from '../../config.js';

/** One key as etcd returns it (values decoded to text). */
export interface EtcdKv {
  readonly key: string;
  readonly value: string;
  readonly createRevision: number;
  readonly modRevision: number;
  /** The lease the key lives under ('0': none). */
  readonly lease: string;
}

/** A comparison of a txn: the key absent, a value equal, a key under a lease, or its mod revision. */
export type EtcdCompare =
  | { readonly key: string; readonly absent: true }
  | { readonly key: string; readonly value: string }
  | { readonly key: string; readonly lease: string }
  | { readonly key: string; readonly modRevision: number };

export type EtcdOp = { readonly put: string; readonly value: string; readonly lease?: string } | { readonly delete: string };

/** The answer of an etcd that could not be reached or answered an error: the caller retries, the lease runs on. */
export class EtcdUnavailable extends Error {}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const unb64 = (text: string | undefined) => Buffer.from(text ?? '', 'base64').toString('utf8');
/** The end of a prefix range: the prefix with its last byte incremented. */
function prefixEnd(prefix: string): string {
  const bytes = Buffer.from(prefix, 'utf8');
  bytes[bytes.length - 1]++;
  return bytes.toString('base64');
}

function compareOf(compare: EtcdCompare): Record<string, unknown> {
  const key = b64(compare.key);
  if ('absent' in compare) return { key, target: 'CREATE', result: 'EQUAL', create_revision: '0' };
  if ('value' in compare) return { key, target: 'VALUE', result: 'EQUAL', value: b64(compare.value) };
  if ('lease' in compare) return { key, target: 'LEASE', result: 'EQUAL', lease: compare.lease };
  return { key, target: 'MOD', result: 'EQUAL', mod_revision: String(compare.modRevision) };
}

function opOf(op: EtcdOp): Record<string, unknown> {
  if ('delete' in op) return { request_delete_range: { key: b64(op.delete) } };
  return { request_put: { key: b64(op.put), value: b64(op.value), ...(op.lease ? { lease: op.lease } : {}) } };
}

function kvOf(raw: Record<string, string>): EtcdKv {
  return { key: unb64(raw.key), value: unb64(raw.value), createRevision: Number(raw.create_revision ?? 0), modRevision: Number(raw.mod_revision ?? 0), lease: raw.lease ?? '0' };
}

/**
 * A small client of etcd's v3 HTTP/JSON gateway (no gRPC dependency): leases, ranges, txns. Each
 * call goes to the endpoint that last answered, and on a failure to the next one, within one
 * deadline; an etcd without quorum fails linearizable calls, which is what the caller must see.
 */
export class EtcdClient {
  private readonly dispatcher: Agent;
  private current = 0;
  private token: string | null = null;

  constructor(private readonly config: Pick<GeoCoordinatorConfig, 'endpoints' | 'caFile' | 'certFile' | 'keyFile' | 'username' | 'password'>) {
    const tls = {
      ...(config.caFile ? { ca: readFileSync(config.caFile) } : {}),
      ...(config.certFile && config.keyFile ? { cert: readFileSync(config.certFile), key: readFileSync(config.keyFile) } : {}),
    };
    this.dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 4, connect: { timeout: 1_000, ...tls } });
  }

  async grant(ttlSeconds: number, timeoutMs: number): Promise<{ id: string; ttlSeconds: number }> {
    const answer = await this.call('/v3/lease/grant', { TTL: String(ttlSeconds) }, timeoutMs);
    return { id: String(answer.ID), ttlSeconds: Number(answer.TTL ?? 0) };
  }

  /** Renews a lease; 0 when it is gone (expired or revoked). */
  async keepAlive(id: string, timeoutMs: number): Promise<number> {
    const answer = await this.call('/v3/lease/keepalive', { ID: id }, timeoutMs);
    return Number((answer.result as Record<string, unknown> | undefined)?.TTL ?? 0);
  }

  /** Every key under `prefix`, linearizable (an etcd without quorum fails it). */
  async rangePrefix(prefix: string, timeoutMs: number): Promise<{ kvs: EtcdKv[]; revision: number }> {
    const answer = await this.call('/v3/kv/range', { key: b64(prefix), range_end: prefixEnd(prefix) }, timeoutMs);
    const kvs = ((answer.kvs as Array<Record<string, string>> | undefined) ?? []).map(kvOf);
    return { kvs, revision: Number((answer.header as Record<string, string> | undefined)?.revision ?? 0) };
  }

  async put(key: string, value: string, timeoutMs: number, lease?: string): Promise<void> {
    await this.call('/v3/kv/put', { key: b64(key), value: b64(value), ...(lease ? { lease } : {}) }, timeoutMs);
  }

  async delete(key: string, timeoutMs: number): Promise<void> {
    await this.call('/v3/kv/deleterange', { key: b64(key) }, timeoutMs);
  }

  /** All of `success` when every comparison holds, else nothing: whether it did. */
  async txn(compare: EtcdCompare[], success: EtcdOp[], timeoutMs: number): Promise<boolean> {
    const answer = await this.call('/v3/kv/txn', { compare: compare.map(compareOf), success: success.map(opOf) }, timeoutMs);
    return answer.succeeded === true;
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }

  private async call(path: string, body: object, timeoutMs: number): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    let lastError: Error = new EtcdUnavailable('no etcd endpoint answered');
    for (let tried = 0; tried < this.config.endpoints.length && Date.now() < deadline; tried++) {
      const endpoint = this.config.endpoints[this.current];
      try {
        // A share of what is left per endpoint: a black-holed member must not eat the whole deadline.
        return await this.once(endpoint, path, body, Math.max(100, (deadline - Date.now()) / (this.config.endpoints.length - tried)));
      } catch (error) {
        lastError = error as Error;
        // An answer of etcd itself (a failed compare is no error) stands; a dead or cut-off member does not.
        if (!(error instanceof EtcdUnavailable)) throw error;
        this.current = (this.current + 1) % this.config.endpoints.length;
      }
    }
    throw lastError;
  }

  private async once(endpoint: string, path: string, body: object, budgetMs: number, retried = false): Promise<Record<string, unknown>> {
    // Whole milliseconds: AbortSignal.timeout refuses a fraction.
    const timeoutMs = Math.max(1, Math.ceil(budgetMs));
    if (this.config.username && !this.token) await this.authenticate(endpoint, timeoutMs);
    let response;
    try {
      response = await request(`${endpoint}${path}`, {
        method: 'POST',
        dispatcher: this.dispatcher,
        headers: { 'content-type': 'application/json', ...(this.token ? { authorization: this.token } : {}) },
        body: JSON.stringify(body),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new EtcdUnavailable(`${endpoint}: ${(error as Error).message}`);
    }
    const text = await response.body.text().catch((error: Error) => {
      throw new EtcdUnavailable(`${endpoint}: ${error.message}`);
    });
    let answer: Record<string, unknown>;
    try {
      answer = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new EtcdUnavailable(`${endpoint}: answered ${response.statusCode} ${text.slice(0, 200)}`);
    }
    // A streamed call (keepalive) wraps its answer or its error.
    const error = (answer.error ?? (response.statusCode >= 400 ? answer : null)) as { message?: string; grpc_code?: number; code?: number } | null;
    if (error) {
      const message = String(error.message ?? JSON.stringify(error));
      if (/token/i.test(message) && this.config.username && !retried) {
        this.token = null;
        return this.once(endpoint, path, body, timeoutMs, true);
      }
      // No leader, timeouts, a stopping member: this member cannot answer now, another may.
      if (/leader|timed out|timeout|stopped|unavailable|too many requests/i.test(message) || response.statusCode >= 500) throw new EtcdUnavailable(`${endpoint}: ${message}`);
      throw new Error(`etcd ${path}: ${message}`);
    }
    return answer;
  }

  private async authenticate(endpoint: string, timeoutMs: number): Promise<void> {
    let response;
    try {
      response = await request(`${endpoint}/v3/auth/authenticate`, {
        method: 'POST',
        dispatcher: this.dispatcher,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: this.config.username, password: this.config.password }),
        signal: AbortSignal.timeout(Math.max(1, Math.ceil(timeoutMs))),
      });
    } catch (error) {
      throw new EtcdUnavailable(`${endpoint}: ${(error as Error).message}`);
    }
    const answer = (await response.body.json().catch(() => ({}))) as { token?: string; message?: string };
    if (!answer.token) throw new Error(`etcd authentication as ${this.config.username} failed: ${answer.message ?? response.statusCode}`);
    this.token = answer.token;
  }
}
