import Database from 'better-sqlite3';
import { cp, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT_TOKEN, SERVER_NODE_FLAGS, SITE_WORKERS_ENV } from './geoforge.js';
import { Scope } from './scope.js';
import { freePort, startServer, type RunningServer } from './server.js';

/** GEOFORGE_GEO_SECRET shared by the benched primary and secondary. */
export const GEO_SECRET = 'bench-geo-secret-0123456789abcdef';
export const PRIMARY_NODE = 'bench-primary';
export const SECONDARY_NODE = 'bench-secondary';

/** The SQLite file of a site's data dir. */
export const siteDb = (dataDir: string): string => path.join(dataDir, 'geoforge.sqlite');

/**
 * A scope inside `parent` for a process the scenario stops before the end (a secondary between
 * rounds): closing it stops just that process; the parent still closes it on failure.
 */
export function childScope(parent: Scope): Scope {
  const child = new Scope();
  parent.defer(() => child.close());
  return child;
}

export interface GeoSiteSpec {
  readonly name: string;
  readonly dataDir: string;
  readonly logFile: string;
  /** Extra GEOFORGE_* settings (role, primary URL, tuning). */
  readonly env?: Readonly<Record<string, string>>;
  /** Extra node flags before the script, e.g. --cpu-prof. */
  readonly nodeFlags?: readonly string[];
  /** The core it runs on (default: the server core). */
  readonly core?: number;
}

/**
 * `node dist/cli.js serve` as a Geo site (primary unless env says otherwise), on the server core
 * like every benched server, with the request log at info as in production.
 */
export async function startGeoSite(scope: Scope, spec: GeoSiteSpec): Promise<RunningServer & { port: number }> {
  const port = await freePort();
  const server = await startServer(scope, {
    name: spec.name,
    nodeArgs: [...SERVER_NODE_FLAGS, ...(spec.nodeFlags ?? []), 'dist/cli.js', 'serve'],
    env: {
      GEOFORGE_HOST: '127.0.0.1',
      GEOFORGE_PORT: String(port),
      GEOFORGE_EXTERNAL_URL: `http://127.0.0.1:${port}`,
      GEOFORGE_DATA_DIR: spec.dataDir,
      GEOFORGE_GEO_SECRET: GEO_SECRET,
      GEOFORGE_LOG_LEVEL: 'info',
      // The bench client is on loopback: it measures the site, not its rate limits.
      GEOFORGE_RATE_LIMIT_EXEMPT_LOOPBACK: 'true',
      ...SITE_WORKERS_ENV,
      ...spec.env,
    },
    port,
    readyPath: '/-/readiness',
    logFile: spec.logFile,
    core: spec.core,
  });
  return { ...server, port };
}

/** Settings of the benched primary: the root token, and no pruning, so every round can replay the same backlog. */
export const primaryEnv = (extra: Readonly<Record<string, string>> = {}): Record<string, string> => ({
  GEOFORGE_NODE_NAME: PRIMARY_NODE,
  GEOFORGE_ROOT_TOKEN: ROOT_TOKEN,
  GEOFORGE_GEO_LOG_KEEP_MIN: '100000000',
  ...extra,
});

export const secondaryEnv = (primaryUrl: string, extra: Readonly<Record<string, string>> = {}): Record<string, string> => ({
  GEOFORGE_ROLE: 'secondary',
  GEOFORGE_PRIMARY_URL: primaryUrl,
  GEOFORGE_NODE_NAME: SECONDARY_NODE,
  GEOFORGE_GEO_STATUS_INTERVAL_SECONDS: '5',
  ...extra,
});

/**
 * BENCH_CPU_PROF=<dir>: the measured geoforge processes (primary and secondary) run with --cpu-prof
 * and write CPU.<date>.<time>.<pid>...cpuprofile there when they exit; the scenario log names the pids.
 */
export function profileFlags(): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(dir)}`] : [];
}

/** The newest event id of a primary's log (sqlite_sequence survives pruning). */
export function lastEventIdOf(db: Database.Database): number {
  return (db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'geo_event_log'").pluck().get() as number | undefined) ?? 0;
}

/** Reads one integer from a SQLite file another process writes, opened read-only; null when the row is not there yet. */
export class CursorReader {
  readonly #db: Database.Database;
  readonly #read: Database.Statement;

  constructor(file: string, sql: string) {
    this.#db = new Database(file, { readonly: true, fileMustExist: true });
    this.#read = this.#db.prepare(sql).pluck();
  }

  read(): number | null {
    return (this.#read.get() as number | undefined) ?? null;
  }

  close(): void {
    this.#db.close();
  }
}

export interface CatchUp {
  /** Cursor before anything was applied. */
  readonly startCursor: number;
  /** performance.now() and cursor when the first applied batch was seen. */
  readonly firstAt: number;
  readonly firstCursor: number;
  /** performance.now() when the cursor reached the target. */
  readonly doneAt: number;
  readonly doneCursor: number;
}

/**
 * Polls a cursor every millisecond until it reaches `target`: records when it first moved (the
 * first applied batch) and when it arrived. Throws after `timeoutMs` without progress, or once `signal` aborts.
 */
export async function watchCatchUp(reader: () => number | null, target: number, timeoutMs: number, signal?: AbortSignal): Promise<CatchUp> {
  let startCursor: number | null = null;
  let first: { at: number; cursor: number } | null = null;
  let lastProgress = performance.now();
  let last = -1;
  for (;;) {
    signal?.throwIfAborted();
    const cursor = reader();
    const now = performance.now();
    if (cursor !== null) {
      startCursor ??= cursor;
      if (cursor !== last) lastProgress = now;
      last = cursor;
      if (!first && cursor > startCursor) first = { at: now, cursor };
      if (cursor >= target) {
        first ??= { at: now, cursor };
        return { startCursor, firstAt: first.at, firstCursor: first.cursor, doneAt: now, doneCursor: cursor };
      }
    }
    if (now - lastProgress > timeoutMs) throw new Error(`catch-up stalled at cursor ${cursor} (target ${target}) for ${timeoutMs} ms`);
    await sleep(1);
  }
}

/** Replaces `dir` with a copy of `from` (a stopped site's data dir). */
export async function restoreDir(from: string, dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(path.dirname(dir), { recursive: true });
  await cp(from, dir, { recursive: true });
}
