import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, expect } from 'vitest';
import { isReplicatedTable } from '../../src/db/local-tables.js';
import { runGit } from '../../src/git/cli.js';
import { freePort } from './free-port.js';

export { freePort };
import { repositoryPath } from '../../src/storage/layout.js';
import { ROOT_TOKEN, type ApiResponse, type RequestOptions } from './site.js';

export { ROOT_TOKEN };
export const GEO_SECRET = 'multisite-geo-secret-0123456789';
const CLI = path.resolve('dist/cli.js');
const OUTPUT_KEEP = 256 * 1024;


/**
 * Polls `check` until it returns something other than false/undefined/null without throwing; the
 * last error (an expect() that kept failing) is what a timeout reports. Never a fixed sleep.
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  options: { timeoutMs?: number; intervalMs?: number; message?: string } = {},
): Promise<Exclude<T, false | null | undefined>> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const intervalMs = options.intervalMs ?? 25;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  for (;;) {
    try {
      const value = await check();
      if (value !== false && value !== null && value !== undefined) return value as Exclude<T, false | null | undefined>;
      lastError = null;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const what = options.message ?? 'condition';
      if (lastError instanceof Error) {
        lastError.message = `waitFor(${what}) timed out after ${timeoutMs} ms: ${lastError.message}`;
        throw lastError;
      }
      throw new Error(`waitFor(${what}) timed out after ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export interface SiteProcessOptions {
  name: string;
  role: 'primary' | 'secondary';
  primary?: SiteProcess;
  /** Extra GEOFORGE_* variables. */
  env?: Record<string, string>;
}

/** One `node dist/cli.js serve` process with its own port and data dir; restartable on the same port and data. */
export class SiteProcess {
  readonly url: string;
  readonly dbFile: string;
  child: ChildProcess | null = null;
  /** stdout and stderr of every run of this site, newest last (bounded). */
  output = '';
  private readonly dispatcher = new Agent({ keepAliveTimeout: 10_000, connections: 16 });

  private constructor(
    readonly name: string,
    readonly role: 'primary' | 'secondary',
    readonly port: number,
    readonly dataDir: string,
    readonly env: Record<string, string>,
  ) {
    this.url = `http://127.0.0.1:${port}`;
    this.dbFile = path.join(dataDir, 'geoforge.sqlite');
  }

  static async create(options: SiteProcessOptions): Promise<SiteProcess> {
    const port = await freePort();
    const dataDir = await mkdtemp(path.join(tmpdir(), `geoforge-${options.name}-`));
    if (options.role === 'secondary' && !options.primary) throw new Error('a secondary needs a primary');
    const env: Record<string, string> = {
      GEOFORGE_HOST: '127.0.0.1',
      GEOFORGE_PORT: String(port),
      GEOFORGE_DATA_DIR: dataDir,
      GEOFORGE_EXTERNAL_URL: `http://127.0.0.1:${port}`,
      GEOFORGE_ROOT_TOKEN: ROOT_TOKEN,
      GEOFORGE_GEO_SECRET: GEO_SECRET,
      GEOFORGE_NODE_NAME: options.name,
      GEOFORGE_ROLE: options.role,
      GEOFORGE_GEO_STATUS_INTERVAL_SECONDS: '1',
      GEOFORGE_GEO_HEARTBEAT_SECONDS: '1',
      GEOFORGE_LOG_LEVEL: 'info',
      // Loopback receivers and loopback clients, as in test/helpers/site.ts.
      GEOFORGE_ALLOW_LOCAL_REQUESTS: 'true',
      GEOFORGE_RATE_LIMIT_EXEMPT_LOOPBACK: 'true',
      // One request worker beside the background worker: the process model, at the least cost in boot time and memory.
      GEOFORGE_WORKERS: '1',
      ...(options.primary ? { GEOFORGE_PRIMARY_URL: options.primary.url } : {}),
      ...options.env,
    };
    return new SiteProcess(options.name, options.role, port, dataDir, env);
  }

  get running(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Spawns the process; resolves once GET /-/readiness answers 200 (unless `ready: false`). */
  async start(options: { ready?: boolean; timeoutMs?: number } = {}): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running`);
    const env = { ...process.env };
    for (const key of Object.keys(env)) if (key.startsWith('GEOFORGE_')) delete env[key];
    // Its own process group: a signal reaches the supervisor and its workers alike (signal()).
    const child = spawn(process.execPath, [CLI, 'serve'], { env: { ...env, ...this.env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    this.child = child;
    this.output += `\n--- ${this.name} started (pid ${child.pid}) ---\n`;
    const keep = (chunk: Buffer) => {
      this.output += chunk.toString();
      if (this.output.length > OUTPUT_KEEP) this.output = this.output.slice(-OUTPUT_KEEP);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    child.once('exit', (code, signal) => {
      this.output += `\n--- ${this.name} exited (code ${code}, signal ${signal}) ---\n`;
    });
    if (options.ready === false) return;
    await waitFor(
      async () => {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${this.name} exited during start:\n${this.output.slice(-4000)}`);
        const response = await this.api('/-/readiness', { as: null }).catch(() => null);
        return response?.status === 200;
      },
      { timeoutMs: options.timeoutMs ?? 40_000, message: `${this.name} ready` },
    ).catch((error: Error) => {
      error.message += `\n${this.name} output:\n${this.output.slice(-4000)}`;
      throw error;
    });
  }

  /**
   * Sends `signal` to the site: SIGTERM to its supervisor (which drains its workers), any other
   * signal (SIGKILL, SIGSTOP, SIGCONT) to every process of it, as a crash or a freeze of the machine would.
   */
  signal(signal: NodeJS.Signals): void {
    const child = this.child;
    if (!child || !this.running) return;
    if (signal === 'SIGTERM') child.kill(signal);
    else process.kill(-child.pid!, signal);
  }

  /** Sends `signal` and resolves when the process has exited. */
  async kill(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    this.signal(signal);
    await exited;
  }

  async restart(options: { signal?: NodeJS.Signals; ready?: boolean } = {}): Promise<void> {
    await this.kill(options.signal ?? 'SIGTERM');
    await this.start({ ready: options.ready });
  }

  /** Stops the process and removes its data dir. */
  async destroy(): Promise<void> {
    await this.kill('SIGKILL');
    await this.dispatcher.close().catch(() => undefined);
    await rm(this.dataDir, { recursive: true, force: true });
  }

  /** Calls `/api/v4<path>` (or a path starting with `/-/`) as root unless `as` says otherwise. */
  async api<T = any>(pathAndQuery: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const raw = /^\/(-\/|oauth|users\/sign_in|uploads)/.test(pathAndQuery) ? pathAndQuery : `/api/v4${pathAndQuery}`;
    const headers: Record<string, string> = { ...options.headers };
    const token = options.as === undefined ? ROOT_TOKEN : options.as;
    if (token !== null) headers['private-token'] = token;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await request(`${this.url}${raw}`, {
      method: (options.method ?? 'GET') as 'GET',
      headers,
      body,
      dispatcher: this.dispatcher,
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    });
    const text = await response.body.text();
    let parsed: unknown = text;
    if (String(response.headers['content-type'] ?? '').startsWith('application/json') && text) parsed = JSON.parse(text);
    return { status: response.statusCode, headers: response.headers, body: parsed as T, text };
  }

  /** Runs `node dist/cli.js <args>` with this site's environment (its config); resolves with the exit code and output. */
  cli(args: string[], options: { timeoutMs?: number } = {}): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
    const env = { ...process.env };
    for (const key of Object.keys(env)) if (key.startsWith('GEOFORGE_')) delete env[key];
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, ...args], { env: { ...env, ...this.env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
      child.once('error', reject);
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr, ms: Date.now() - started });
      });
    });
  }

  /** Opens this site's SQLite file read-only (another process may be writing it). */
  openReadOnly(): Database.Database {
    const db = new Database(this.dbFile, { readonly: true, fileMustExist: true });
    db.pragma('busy_timeout = 5000');
    return db;
  }

  /** The cursor of a secondary, read from its file; null before it bootstrapped. */
  cursor(): { last_event_id: number; bootstrapped_at: string } | null {
    return withDb(this, (db) => {
      const exists = db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'geo_cursor'").get();
      return exists ? ((db.prepare('SELECT last_event_id, bootstrapped_at FROM geo_cursor WHERE id = 1').get() as never) ?? null) : null;
    });
  }

  /** The newest event id of a primary. */
  lastEventId(): number {
    return withDb(this, (db) => lastEventIdOf(db));
  }
}

function withDb<T>(site: SiteProcess, work: (db: Database.Database) => T): T {
  const db = site.openReadOnly();
  try {
    return work(db);
  } finally {
    db.close();
  }
}

export function lastEventIdOf(db: Database.Database): number {
  return (db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'geo_event_log'").pluck().get() as number | undefined) ?? 0;
}

export type TableDump = Record<string, unknown[][]>;

/** Every replicated table (all but schema_migrations, geo_event_log, geo_cursor and sqlite_*), each table's rows ordered by id. */
export function dumpTables(db: Database.Database, options: { exclude?: readonly string[] } = {}): TableDump {
  const names = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").pluck().all() as string[]).filter(
    (name) => isReplicatedTable(name) && !options.exclude?.includes(name),
  );
  const out: TableDump = {};
  for (const name of names) {
    const columns = (db.prepare('SELECT name FROM pragma_table_info(?) ORDER BY cid').pluck().all(name) as string[]).map((c) => `"${c}"`).join(', ');
    out[name] = db.prepare(`SELECT ${columns} FROM "${name}" ORDER BY id`).raw().all() as unknown[][];
  }
  return out;
}

/**
 * A primary's replicated tables with the event id they are consistent with, and a secondary's
 * with its cursor, each read in one read transaction of the site's SQLite file.
 */
export function readState(site: SiteProcess, options: { exclude?: readonly string[] } = {}): { position: number; tables: TableDump } {
  return withDb(site, (db) =>
    db.transaction(() => {
      const position =
        site.role === 'primary'
          ? lastEventIdOf(db)
          : ((db.prepare('SELECT last_event_id FROM geo_cursor WHERE id = 1').pluck().get() as number | undefined) ?? -1);
      return { position, tables: dumpTables(db, options) };
    })(),
  );
}

export interface ClusterOptions {
  primaryEnv?: Record<string, string>;
  secondaryEnv?: Record<string, string>;
}

export interface Cluster {
  primary: SiteProcess;
  secondaries: SiteProcess[];
  destroy(): Promise<void>;
}

/** Starts a primary and `secondaries` secondaries (in parallel), each ready. */
export async function startCluster(secondaries: number, options: ClusterOptions = {}): Promise<Cluster> {
  const primary = await SiteProcess.create({ name: 'primary', role: 'primary', env: options.primaryEnv });
  const created: SiteProcess[] = [primary];
  try {
    await primary.start();
    const list = await Promise.all(
      Array.from({ length: secondaries }, (_, index) => SiteProcess.create({ name: `secondary-${index + 1}`, role: 'secondary', primary, env: options.secondaryEnv })),
    );
    created.push(...list);
    await Promise.all(list.map((site) => site.start()));
    return { primary, secondaries: list, destroy: () => destroyAll(created) };
  } catch (error) {
    await destroyAll(created);
    throw error;
  }
}

/** The sites of a cluster that a describe's hooks start and destroy; each accessor throws before the cluster is up. */
export interface ClusterSites {
  readonly cluster: Cluster;
  readonly primary: SiteProcess;
  readonly secondaries: SiteProcess[];
  /** The first secondary. */
  readonly secondary: SiteProcess;
}

/**
 * Registers, in the calling describe, a beforeAll that starts a primary and `secondaries`
 * secondaries (then calls `ready` with them, to set the describe's own variables) and an afterAll
 * that destroys them. Any beforeAll the describe registers later runs with the sites up.
 */
export function useCluster(secondaries: number, options: ClusterOptions & { timeoutMs?: number } = {}, ready?: (sites: ClusterSites) => void): ClusterSites {
  let cluster: Cluster | undefined;
  const up = (): Cluster => {
    if (!cluster) throw new Error('the cluster is not started yet (read the sites inside a test or a later hook)');
    return cluster;
  };
  const sites: ClusterSites = {
    get cluster() {
      return up();
    },
    get primary() {
      return up().primary;
    },
    get secondaries() {
      return up().secondaries;
    },
    get secondary() {
      return up().secondaries[0]!;
    },
  };
  const { timeoutMs, ...clusterOptions } = options;
  beforeAll(async () => {
    cluster = await startCluster(secondaries, clusterOptions);
    ready?.(sites);
  }, timeoutMs);
  afterAll(async () => {
    await cluster?.destroy();
  });
  return sites;
}

/** useCluster with one secondary: a primary and a secondary for the calling describe. */
export function useTwoSites(options: ClusterOptions & { timeoutMs?: number } = {}, ready?: (sites: ClusterSites) => void): ClusterSites {
  return useCluster(1, options, ready);
}

export async function destroyAll(sites: readonly SiteProcess[]): Promise<void> {
  await Promise.all(sites.map((site) => site.destroy()));
}

/** Runs `count` tasks with at most `concurrency` in flight; `task(i)` runs for i = 0..count-1. */
export async function runConcurrently(count: number, concurrency: number, task: (index: number, worker: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (next < count) await task(next++, worker);
    }),
  );
}

/** Whether two bodies are equal but for each site's own URL (web_url, http_url_to_repo...). */
export const sameButSiteUrl = (got: string, gotUrl: string, want: string, wantUrl: string): boolean =>
  got.split(gotUrl).join('<site>') === want.split(wantUrl).join('<site>');

/**
 * Waits until `path` answers `status` on the primary and the same body (but for the site URL) on the
 * secondary, both asked as `as` (root unless given); the primary's answer.
 */
export function readsTheSame(primary: SiteProcess, secondary: SiteProcess, path: string, status = 200, options: { as?: string | null } = {}) {
  return waitFor(
    async () => {
      const [want, got] = await Promise.all([primary.api(path, options), secondary.api(path, options)]);
      expect(want.status, want.text).toBe(status);
      return got.status === status && sameButSiteUrl(got.text, secondary.url, want.text, primary.url) && want;
    },
    { timeoutMs: 30_000, message: `${path} the same on both sites` },
  );
}

/** POSTs `body` to `path` on `site`, expecting 201; the created resource. */
export async function createdOn(site: SiteProcess, path: string, body: Record<string, unknown>) {
  const response = await site.api(path, { method: 'POST', body });
  expect(response.status, response.text).toBe(201);
  return response.body;
}

/** The sha `ref` names in the site's own copy of the project's repository; null when it names nothing. */
export async function refOf(site: SiteProcess, projectId: number, ref: string): Promise<string | null> {
  try {
    return (await runGit(['--git-dir', repositoryPath(site.dataDir, projectId), 'rev-parse', '--verify', '--quiet', ref])).stdout.trim();
  } catch {
    return null;
  }
}

/** Commits a new file `file` (its name as content) to `branch` through the site's API, from `start` when given; the commit. */
export async function commitFile(site: SiteProcess, projectId: number, branch: string, file: string, start?: string) {
  const response = await site.api(`/projects/${projectId}/repository/commits`, {
    method: 'POST',
    body: { branch, commit_message: `add ${file}`, actions: [{ action: 'create', file_path: file, content: `${file}\n` }], ...(start ? { start_branch: start } : {}) },
  });
  expect(response.status, response.text).toBe(201);
  return response.body;
}
