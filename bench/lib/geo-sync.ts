import Database from 'better-sqlite3';
import { readFileSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { BlobType } from '../../src/geo/blobs.js';
import { LOAD_CORE } from './cpu.js';
import { count } from './format.js';
import { SECONDARY_NODE, childScope, profileFlags, secondaryEnv, siteDb, startGeoSite } from './geo.js';
import { ROOT_TOKEN } from './geoforge.js';
import type { Scope } from './scope.js';
import type { RunningServer } from './server.js';

/** A whole number >= 1 from the environment (scales a bench down for a quick check), else `fallback`. */
export function countSetting(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name}: expected a whole number >= 1, got "${raw}"`);
  return value;
}

/**
 * BENCH_GEO_REPOS_CAPACITY / BENCH_GEO_FILES_CAPACITY: the secondary's repos_max_capacity and
 * files_max_capacity, set on the primary by an admin's POST /geo_nodes before the secondary first
 * registers (it keeps the row, and the settings, by name). Unset, the node gets GitLab's defaults.
 */
export async function presetSecondaryCapacity(primaryUrl: string): Promise<string> {
  const settings = Object.fromEntries(
    (
      [
        ['repos_max_capacity', 'BENCH_GEO_REPOS_CAPACITY'],
        ['files_max_capacity', 'BENCH_GEO_FILES_CAPACITY'],
      ] as const
    ).flatMap(([field, name]) => (process.env[name] ? [[field, countSetting(name, 1)]] : [])),
  );
  if (!Object.keys(settings).length) return 'default capacities';
  // Any URL will do: the secondary's registration replaces it with its own.
  const body = { name: SECONDARY_NODE, url: 'http://127.0.0.1:9/bench-secondary', ...settings };
  const response = await fetch(`${primaryUrl}/api/v4/geo_nodes`, {
    method: 'POST',
    headers: { 'Private-Token': ROOT_TOKEN, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`POST /geo_nodes on the primary: ${response.status} ${await response.text()}`);
  return Object.entries(settings)
    .map(([field, value]) => `${field} ${value}`)
    .join(', ');
}

export interface FreshSecondary {
  readonly server: RunningServer;
  /** The scope that stops just this secondary. */
  readonly scope: Scope;
  /** performance.now() just before the spawn. */
  readonly spawnedAt: number;
}

/**
 * A secondary on an empty data dir (the directory is wiped first), on the load core: it plays the
 * client, as the git or HTTP clients of the baseline do, while its primary serves on the server
 * core. It bootstraps from the primary's snapshot, registers (the same node name every round, so
 * the primary keeps one geo_nodes row) and syncs everything in the inventory. BENCH_CPU_PROF
 * profiles it as it does the replication scenarios' sites.
 */
export async function startFreshSecondary(parent: Scope, primaryUrl: string, dataDir: string, logFile: string, extraEnv: Record<string, string> = {}): Promise<FreshSecondary> {
  await rm(dataDir, { recursive: true, force: true });
  const scope = childScope(parent);
  const spawnedAt = performance.now();
  const server = await startGeoSite(scope, {
    name: 'geoforge secondary',
    dataDir,
    logFile,
    env: secondaryEnv(primaryUrl, extraEnv),
    core: LOAD_CORE,
    nodeFlags: profileFlags(),
  });
  if (profileFlags().length) console.log(`  profiling the secondary, pid ${server.pid}`);
  return { server, scope, spawnedAt };
}

interface RegistryCounts {
  readonly synced: number;
  readonly failed: number;
  readonly started: number;
  readonly pending: number;
}

interface OpenRegistry {
  readonly db: Database.Database;
  readonly inode: number;
  readonly counts: Database.Statement;
}

/**
 * Counts of a secondary's registry rows of some types, read from its SQLite file through a
 * read-only connection of our own (WAL: readers never block its writers). The file appears once
 * the secondary has booted, and its bootstrap renames the primary's snapshot over it: the
 * connection follows the file by inode, and until there is a registry every count is zero.
 */
export class RegistryReader {
  readonly #file: string;
  readonly #types: string;
  #open: OpenRegistry | null = null;

  constructor(dataDir: string, types: readonly BlobType[]) {
    this.#file = siteDb(dataDir);
    this.#types = types.map((type) => `'${type}'`).join(', ');
  }

  counts(): RegistryCounts {
    const rows = (this.#current()?.counts.all() ?? []) as { state: keyof RegistryCounts; n: number }[];
    const counts = { synced: 0, failed: 0, started: 0, pending: 0 };
    for (const row of rows) counts[row.state] = row.n;
    return counts;
  }

  /** The database as it is now, for one-off queries after a sync; throws while the secondary has no registry. */
  get db(): Database.Database {
    const open = this.#current();
    if (!open) throw new Error(`no registry in ${this.#file}`);
    return open.db;
  }

  close(): void {
    this.#open?.db.close();
    this.#open = null;
  }

  #current(): OpenRegistry | null {
    const inode = statSync(this.#file, { throwIfNoEntry: false })?.ino;
    if (this.#open && this.#open.inode === inode) return this.#open;
    this.close();
    if (inode === undefined) return null;
    const db = new Database(this.#file, { readonly: true, fileMustExist: true });
    try {
      const counts = db.prepare(`SELECT state, count(*) AS n FROM geo_registry WHERE to_delete = 0 AND item_type IN (${this.#types}) GROUP BY state`);
      this.#open = { db, inode, counts };
      return this.#open;
    } catch {
      // No geo_registry yet: the secondary is still migrating its new database.
      db.close();
      return null;
    }
  }
}

/**
 * The registry poll runs in this process, on the load core beside the secondary it watches: every
 * 20 ms, a registry of 5,000 rows took 14 % of that core (perf), CPU the baseline's side never pays.
 * Spans are read from the registry's own times, so polling less only delays noticing the end.
 */
const POLL_MS = 100;
const PROGRESS_MS = 10_000;

/**
 * Polls the registry every 100 ms until `expected` items are synced; returns performance.now() at
 * that moment. Logs progress every 10 s. Throws when nothing moved for `stallMs` (failed items
 * left to their backoff count as no movement), naming the registry's state and a failure text.
 * `onFirstClaim` runs once, when the first poll sees an item claimed.
 */
export async function waitUntilSynced(reader: RegistryReader, expected: number, stallMs: number, label: string, onFirstClaim?: () => void): Promise<number> {
  let claimed = false;
  let last = '';
  let lastChange = performance.now();
  let lastLog = lastChange;
  for (;;) {
    const counts = reader.counts();
    const now = performance.now();
    if (!claimed && counts.started + counts.synced + counts.failed > 0) {
      claimed = true;
      onFirstClaim?.();
    }
    if (counts.synced >= expected) return now;
    const shown = describeCounts(counts, expected);
    if (shown !== last) {
      last = shown;
      lastChange = now;
    }
    if (now - lastLog >= PROGRESS_MS) {
      console.log(`  ${label}: ${shown}`);
      lastLog = now;
    }
    if (now - lastChange > stallMs) throw new Error(`${label}: stalled for ${stallMs} ms at ${shown}${firstFailure(reader)}`);
    await sleep(POLL_MS);
  }
}

const describeCounts = (counts: RegistryCounts, expected: number): string =>
  `${count(counts.synced)}/${count(expected)} synced, ${count(counts.started)} started, ${count(counts.pending)} pending, ${count(counts.failed)} failed`;

function firstFailure(reader: RegistryReader): string {
  try {
    const row = reader.db.prepare("SELECT item_type, item_id, failure_type, last_sync_failure FROM geo_registry WHERE state = 'failed' LIMIT 1").get() as
      | { item_type: string; item_id: number; failure_type: string; last_sync_failure: string }
      | undefined;
    return row ? `; e.g. ${row.item_type} ${row.item_id} failed (${row.failure_type}): ${row.last_sync_failure}` : '';
  } catch {
    return '';
  }
}

/** The secondary's own GeoNodeStatus, through its API (GET /geo_nodes, then /geo_nodes/:id/status of the node named like it). */
export async function secondaryStatus(secondaryUrl: string): Promise<Record<string, unknown>> {
  const get = async (route: string) => {
    const response = await fetch(`${secondaryUrl}/api/v4${route}`, { headers: { 'Private-Token': ROOT_TOKEN } });
    const body = (await response.json()) as unknown;
    if (response.status !== 200) throw new Error(`GET ${route} on the secondary: ${response.status} ${JSON.stringify(body)}`);
    return body;
  };
  const nodes = (await get('/geo_nodes?per_page=100')) as { id: number; name: string }[];
  const node = nodes.find((candidate) => candidate.name === SECONDARY_NODE);
  if (!node) throw new Error(`the secondary does not list a geo node named ${SECONDARY_NODE}`);
  return (await get(`/geo_nodes/${node.id}/status`)) as Record<string, unknown>;
}

/**
 * Polls the secondary's status until every `<kind>_synced_in_percentage` of `kinds` reads
 * 100.00% (the registry may run a status computation ahead); returns the status, or throws with
 * the last one after `timeoutMs`.
 */
export async function waitForFullStatus(secondaryUrl: string, kinds: readonly string[], timeoutMs: number): Promise<Record<string, unknown>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const status = await secondaryStatus(secondaryUrl);
    if (kinds.every((kind) => status[`${kind}_synced_in_percentage`] === '100.00%')) return status;
    if (performance.now() > deadline) {
      const shown = kinds.map((kind) => `${kind} ${status[`${kind}_synced_count`]}/${status[`${kind}_count`]} (${status[`${kind}_synced_in_percentage`]})`);
      throw new Error(`the secondary's status never reached 100.00%: ${shown.join(', ')}`);
    }
    await sleep(100);
  }
}

/** The highest RSS a process has had (VmHWM), in MiB; null where /proc cannot tell. Forking git costs a node process more the larger it is. */
export function peakRssMiB(pid: number): number | null {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * The secondary's finished syncs by outcome (geo_sync_total of its /-/metrics, summed over the
 * given types): more than one per item means retries or re-syncs, which the wall time alone hides.
 */
export async function syncOutcomes(secondaryUrl: string, types: readonly BlobType[]): Promise<string> {
  const response = await fetch(`${secondaryUrl}/-/metrics`);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET /-/metrics on the secondary: ${response.status}`);
  const byOutcome = new Map<string, number>();
  for (const match of text.matchAll(/^geo_sync_total\{([^}]*)\} (\S+)$/gm)) {
    const labels = Object.fromEntries([...match[1].matchAll(/(\w+)="([^"]*)"/g)].map((label) => [label[1], label[2]]));
    if (!types.includes(labels.type as BlobType)) continue;
    byOutcome.set(labels.outcome, (byOutcome.get(labels.outcome) ?? 0) + Number(match[2]));
  }
  return byOutcome.size ? [...byOutcome].map(([outcome, n]) => `${count(n)} ${outcome}`).join(', ') : 'none';
}
