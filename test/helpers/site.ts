import { rmSync } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Logger } from 'pino';
import { request } from 'undici';
import { defaults, loadConfig, type ConcurrencyLimit, type Config } from '../../src/config.js';
import { createSite, type Site } from '../../src/server.js';
import { syncCaptureTriggers } from '../../src/db/capture.js';
import { openDatabase } from '../../src/db/connection.js';
import { migrate } from '../../src/db/migrate.js';
import { databasePath } from '../../src/storage/layout.js';

export const ROOT_TOKEN = 'glpat-root-token-for-tests-0001';

export interface ApiResponse<T = any> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
  text: string;
}

export interface RequestOptions {
  method?: string;
  /** A token sent as Private-Token; `null` sends no credentials. Defaults to the root token. */
  as?: string | null;
  body?: unknown;
  form?: FormData;
  headers?: Record<string, string>;
}

export interface TestSite {
  url: string;
  site: Site;
  dataDir: string;
  /** Calls `/api/v4<path>` (or an absolute path when it starts with `/-/`, `/oauth` or `/users/sign_in`). */
  api<T = any>(pathAndQuery: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  stop(): Promise<void>;
}

/** The default slots, with queues no test fills or outwaits: a burst waits its turn, as in production, but a busy machine never turns it into a refusal. */
const patient = (limit: ConcurrencyLimit): ConcurrencyLimit => ({ ...limit, queueLimit: 1_000_000, queueTimeoutMs: 3_600_000 });

/**
 * Test sites talk to loopback receivers (webhooks, import sources) and are driven hard from
 * loopback: local requests allowed, loopback not rate limited, and no request refused by admission
 * control. Tests of the refusal and of the limits override these.
 */
export const LOCAL_TEST_NETWORK = {
  allowLocalRequests: true,
  rateLimit: { ...defaults.rateLimit, exemptLoopback: true },
  admission: {
    api: patient(defaults.admission.api),
    uploadPack: patient(defaults.admission.uploadPack),
    receivePack: patient(defaults.admission.receivePack),
    archive: patient(defaults.admission.archive),
  },
} as const satisfies Partial<Config>;

let template: Promise<string> | null = null;

/**
 * A database migrated with the primary's triggers, made once per test worker and copied into each
 * new site's data dir: migrating a fresh file costs about 0.4 s of CPU, a copy a millisecond. The
 * boot still runs the migrations and the trigger sync, and finds nothing left to do.
 */
function migratedTemplate(): Promise<string> {
  template ??= mkdtemp(path.join(tmpdir(), 'geoforge-template-')).then((dir) => {
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'template.sqlite');
    const db = openDatabase(file);
    migrate(db);
    syncCaptureTriggers(db, true);
    db.close();
    return file;
  });
  return template;
}

/** Starts a real site on a free loopback port with its own temp data dir and SQLite file. */
export async function startSite(overrides: Partial<Config> = {}, options: { log?: Logger } = {}): Promise<TestSite> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'geoforge-test-'));
  if (overrides.dataDir === undefined) await copyFile(await migratedTemplate(), databasePath(dataDir));
  const config = loadConfig({ overrides: { port: 0, dataDir, rootToken: ROOT_TOKEN, logLevel: 'silent', ...LOCAL_TEST_NETWORK, ...overrides } });
  const site = await createSite(config, options);
  const url = await site.start();
  const api = async <T>(pathAndQuery: string, options: RequestOptions = {}): Promise<ApiResponse<T>> => {
    const raw = /^\/(-\/|oauth|users\/sign_in|uploads)/.test(pathAndQuery) ? pathAndQuery : `/api/v4${pathAndQuery}`;
    const headers: Record<string, string> = { ...options.headers };
    const token = options.as === undefined ? ROOT_TOKEN : options.as;
    if (token !== null) headers['private-token'] = token;
    let body: string | Buffer | undefined;
    if (options.form) {
      // Serialize with the runtime's own Response, so the test may use the global FormData and Blob.
      const encoded = new Response(options.form);
      headers['content-type'] = encoded.headers.get('content-type')!;
      body = Buffer.from(await encoded.arrayBuffer());
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const response = await request(`${url}${raw}`, { method: (options.method ?? 'GET') as 'GET', headers, body });
    const text = await response.body.text();
    let parsed: unknown = text;
    if (String(response.headers['content-type'] ?? '').startsWith('application/json') && text) parsed = JSON.parse(text);
    return { status: response.statusCode, headers: response.headers, body: parsed as T, text };
  };
  return {
    url,
    site,
    dataDir,
    api,
    stop: async () => {
      await site.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The newest id of the site's Geo event log: take it before requests that must not write. */
export function eventLogHead(site: TestSite): number {
  return site.site.db.prepare('SELECT coalesce(max(id), 0) FROM geo_event_log').pluck().get() as number;
}

/**
 * What was written to the event log after `after`, heartbeats left out (a primary writes them on a
 * timer, whatever the requests do): the rows a request replicated, by table, so a failure names them.
 */
export function replicatedSince(site: TestSite, after: number): { kind: string; table_name: string | null; op: string | null }[] {
  return site.site.db.prepare("SELECT kind, table_name, op FROM geo_event_log WHERE id > ? AND kind <> 'heartbeat' ORDER BY id").all(after) as {
    kind: string;
    table_name: string | null;
    op: string | null;
  }[];
}
