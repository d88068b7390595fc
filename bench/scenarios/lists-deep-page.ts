import { cp } from 'node:fs/promises';
import path from 'node:path';
import { startBaseline } from '../lib/baseline.js';
import { LOAD_CORE, SERVER_CORE, canPin, cpuNoise, sampleCpu, type CpuNoise } from '../lib/cpu.js';
import { count, ms } from '../lib/format.js';
import { childScope, siteDb } from '../lib/geo.js';
import { ROOT_TOKEN, openSeedSite, startGeoforge } from '../lib/geoforge.js';
import { assertAllOk, runLoad, type LoadResult } from '../lib/load.js';
import { interleave } from '../lib/rounds.js';
import type { Outcome, Scenario } from '../lib/scenario.js';
import { tempDir } from '../lib/scope.js';
import { growProjects, userNamespaces, type ProjectSeedState } from '../lib/seed-projects.js';
import { seedUsers } from '../lib/seed-users.js';
import type { RunningServer } from '../lib/server.js';
import { roundSeconds, sized } from '../lib/settings.js';
import { median } from '../lib/stats.js';

/** Owners of the seeded projects (users and their namespaces, made by the users service). */
const USERS = sized(1_000, 20);
const SMALL = sized(10_000, 200);
const MIDDLE = sized(100_000, 1_000);
const LARGE = sized(1_000_000, 2_000);
const PER_PAGE = 20;
/** Page 900 at 20 per page: offset 17,980. */
const DEEP_PAGE = sized(900, 40);
const CONNECTIONS = 10;
const ROUNDS = sized(3, 1);
/** p50(page 900) <= 3x p50(page 1) for offset pagination; ratio = 3 / that quotient, goal >= 1. */
const DEEP_LIMIT = 3;
/** p50 at 1M rows <= 1.2x p50 at 10k rows. */
const GROWTH_LIMIT = 1.2;
const NOISY_PERCENT = 10;
/** geoforge's countUpTo limit (src/db/page.ts): lists longer than this answer without X-Total. */
const COUNT_LIMIT = 10_000;

const listPath = (prefix: string, page: number) => `${prefix}/projects?page=${page}&per_page=${PER_PAGE}`;
/** The root token: an admin, who sees every project; anonymous callers see the same (all are public). */
const ADMIN = { 'Private-Token': ROOT_TOKEN };

interface Target {
  readonly label: string;
  readonly server: RunningServer;
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
}

async function load(target: Target, seconds: number): Promise<LoadResult> {
  const result = await runLoad({ url: target.server.url, path: () => target.path, headers: target.headers, connections: CONNECTIONS, seconds });
  assertAllOk(target.label, result);
  return result;
}

const describe = (result: LoadResult) => `p50 ${ms(result.p50)} (mean ${result.mean.toFixed(2)} ms), ${count(result.rps)} req/s`;

/** Warm-up, then `ROUNDS` interleaved rounds of every target; medians of p50 and mean latency per target. */
async function measureRounds(targets: readonly Target[], seconds: number): Promise<Map<string, LoadResult[]>> {
  for (const target of targets) await load(target, 1);
  const byLabel = Object.fromEntries(targets.map((target) => [target.label, target])) as Record<string, Target>;
  const rounds = await interleave(
    targets.map((target) => target.label),
    ROUNDS,
    async (label, round) => {
      const result = await load(byLabel[label], seconds);
      console.log(`round ${round} ${label.padEnd(28)} ${describe(result)}`);
      return result;
    },
  );
  return new Map(Object.entries(rounds));
}

const p50Of = (results: readonly LoadResult[]) => median(results.map((result) => result.p50));
const meanOf = (results: readonly LoadResult[]) => median(results.map((result) => result.mean));

/** X-Total of a list answer as the given caller; null when the header is absent. */
async function xTotal(server: RunningServer, headers?: Record<string, string>): Promise<string | null> {
  const response = await fetch(server.url + listPath('/api/v4', 1), { headers });
  await response.arrayBuffer();
  if (!response.ok) throw new Error(`${server.name}: GET /projects answered ${response.status}`);
  return response.headers.get('x-total');
}

function grow(file: string, state: ProjectSeedState, total: number): number {
  const started = Date.now();
  const from = state.seeded;
  growProjects(file, state, total);
  const took = Date.now() - started;
  console.log(`grew projects ${count(from)} -> ${count(total)} in ${ms(took)}`);
  return took;
}

/**
 * BENCHMARKS.md scenario 2, offset part: GET /api/v4/projects page 1 vs page 900 at 100k projects,
 * and page 1 at 10k vs 1M projects, against express 5 + better-sqlite3 serving the same page.
 */
export const listsDeepPage: Scenario = {
  name: 'lists-deep-page',
  summary: `GET /api/v4/projects page 1 vs ${DEEP_PAGE} at ${count(MIDDLE)} projects, page 1 at ${count(SMALL)} vs ${count(LARGE)}; vs express + better-sqlite3 page`,
  async run(scope) {
    const seconds = roundSeconds();
    // Page 1 at 10k vs 1M and the baseline's rounds are shorter: they only need a stable p50.
    const shortSeconds = Math.max(2, Math.round(seconds / 2));
    const anonSeconds = Math.min(3, seconds);
    const dir = await tempDir(scope, 'lists-deep-page');
    const dataDir = path.join(dir, 'data');
    const smallDir = path.join(dir, 'data-10k');
    const file = siteDb(dataDir);

    // Users and their namespaces through the users service, projects straight into SQLite.
    let started = Date.now();
    const site = await openSeedSite(dataDir);
    const userIds = await seedUsers(site.db, USERS).finally(() => site.stop());
    console.log(`seeded ${count(USERS)} users in ${ms(Date.now() - started)}`);
    const state: ProjectSeedState = { namespaces: userNamespaces(file, userIds), seeded: 0 };
    grow(file, state, SMALL);
    // The 10k site is kept as a copy, so 10k and 1M can be measured interleaved after the growth.
    await cp(dataDir, smallDir, { recursive: true });
    const seed100k = grow(file, state, MIDDLE);

    // Page 1 vs page 900 at 100k, as admin, against the baseline page over the same file.
    const middle = childScope(scope);
    const geoforge = await startGeoforge(middle, dataDir, path.join(dir, 'geoforge-100k.log'));
    const baseline = await startBaseline(middle, {
      name: 'express+sqlite page',
      script: 'bench/baselines/project-list-sqlite.ts',
      dbFile: file,
      readyPath: listPath('', 1),
      logFile: path.join(dir, 'baseline.log'),
    });
    const total100k = await xTotal(geoforge, ADMIN);
    const pids = () => [process.pid, geoforge.pid, baseline.pid];
    const before = sampleCpu(pids());
    const deep = await measureRounds(
      [
        { label: 'geoforge page 1', server: geoforge, path: listPath('/api/v4', 1), headers: ADMIN },
        { label: `geoforge page ${DEEP_PAGE}`, server: geoforge, path: listPath('/api/v4', DEEP_PAGE), headers: ADMIN },
      ],
      seconds,
    );
    const base = await measureRounds(
      [
        { label: 'baseline page 1', server: baseline, path: listPath('', 1) },
        { label: `baseline page ${DEEP_PAGE}`, server: baseline, path: listPath('', DEEP_PAGE) },
      ],
      shortSeconds,
    );
    // Informational: anonymous callers (public projects only) run a different query.
    const anon1 = await load({ label: 'geoforge anonymous page 1', server: geoforge, path: listPath('/api/v4', 1) }, anonSeconds);
    const anonDeep = await load({ label: `geoforge anonymous page ${DEEP_PAGE}`, server: geoforge, path: listPath('/api/v4', DEEP_PAGE) }, anonSeconds);
    console.log(`anonymous page 1 ${describe(anon1)}; page ${DEEP_PAGE} ${describe(anonDeep)}`);
    const noiseMiddle = cpuNoise(before, sampleCpu(pids()));
    await middle.close();

    // Page 1 at 10k (the copy) vs 1M (the same data dir grown), both servers fresh, interleaved.
    started = Date.now();
    const seed1M = grow(file, state, LARGE);
    const growth = childScope(scope);
    const small = await startGeoforge(growth, smallDir, path.join(dir, 'geoforge-10k.log'));
    const large = await startGeoforge(growth, dataDir, path.join(dir, 'geoforge-1m.log'));
    const total10k = await xTotal(small, ADMIN);
    const total1M = await xTotal(large, ADMIN);
    const before2 = sampleCpu([process.pid, small.pid, large.pid]);
    const sizes = await measureRounds(
      [
        { label: 'geoforge 10k page 1', server: small, path: listPath('/api/v4', 1), headers: ADMIN },
        { label: 'geoforge 1M page 1', server: large, path: listPath('/api/v4', 1), headers: ADMIN },
      ],
      shortSeconds,
    );
    const noiseGrowth = cpuNoise(before2, sampleCpu([process.pid, small.pid, large.pid]));
    await growth.close();
    console.log(`1M phase (growth, restart, measure) took ${ms(Date.now() - started)}`);

    return summarize({
      deep,
      base,
      anon1,
      anonDeep,
      sizes,
      headers: { total10k, total100k, total1M },
      seeding: { seed100k, seed1M },
      noise: [noiseMiddle, noiseGrowth],
      seconds,
      shortSeconds,
    });
  },
};

interface Measured {
  readonly deep: Map<string, LoadResult[]>;
  readonly base: Map<string, LoadResult[]>;
  readonly anon1: LoadResult;
  readonly anonDeep: LoadResult;
  readonly sizes: Map<string, LoadResult[]>;
  readonly headers: { total10k: string | null; total100k: string | null; total1M: string | null };
  readonly seeding: { seed100k: number; seed1M: number };
  readonly noise: readonly CpuNoise[];
  readonly seconds: number;
  readonly shortSeconds: number;
}

function summarize(m: Measured): Outcome {
  const get = (map: Map<string, LoadResult[]>, label: string) => map.get(label)!;
  const page1 = get(m.deep, 'geoforge page 1');
  const pageDeep = get(m.deep, `geoforge page ${DEEP_PAGE}`);
  const basePage1 = get(m.base, 'baseline page 1');
  const baseDeep = get(m.base, `baseline page ${DEEP_PAGE}`);
  const at10k = get(m.sizes, 'geoforge 10k page 1');
  const at1M = get(m.sizes, 'geoforge 1M page 1');

  const deepQuotient = p50Of(pageDeep) / p50Of(page1);
  const roundRatios = page1.map((result, i) => DEEP_LIMIT / (pageDeep[i].p50 / result.p50));
  const growthQuotient = p50Of(at1M) / p50Of(at10k);
  const growthRounds = at10k.map((result, i) => at1M[i].p50 / result.p50);
  const stealPercent = Math.max(...m.noise.map((noise) => noise.stealPercent));
  const otherPercent = Math.max(...m.noise.map((noise) => noise.otherPercent));
  const noisy = stealPercent > NOISY_PERCENT || otherPercent > NOISY_PERCENT;
  const header = (value: string | null) => (value === null ? 'absent' : value);
  const expected = (total: number) => (total <= COUNT_LIMIT ? String(total) : null);
  const xTotalOk = m.headers.total10k === expected(SMALL) && m.headers.total100k === expected(MIDDLE) && m.headers.total1M === expected(LARGE);
  const quotient = (a: readonly LoadResult[], b: readonly LoadResult[]) =>
    `p50 ${ms(p50Of(a))}/${ms(p50Of(b))}, mean ${meanOf(a).toFixed(2)}/${meanOf(b).toFixed(2)} ms (${(meanOf(a) / meanOf(b)).toFixed(2)}x by mean)`;

  const details = [
    `admin (root token) at ${count(MIDDLE)} projects: page ${DEEP_PAGE}/page 1 ${quotient(pageDeep, page1)}, p50 quotient ${deepQuotient.toFixed(2)} (limit ${DEEP_LIMIT})`,
    `rounds ${roundRatios.map((ratio) => ratio.toFixed(2)).join('/')}, goal >= 1 met in ${roundRatios.filter((ratio) => ratio >= 1).length}/${ROUNDS}`,
    `baseline express+sqlite page ${DEEP_PAGE}/page 1 ${quotient(baseDeep, basePage1)} (informational)`,
    `anonymous page 1 p50 ${ms(m.anon1.p50)}, page ${DEEP_PAGE} p50 ${ms(m.anonDeep.p50)} (informational, 1 run)`,
    `page 1 at ${count(LARGE)} vs ${count(SMALL)}: ${quotient(at1M, at10k)}, p50 quotient ${growthQuotient.toFixed(2)} (limit ${GROWTH_LIMIT}) ${
      growthQuotient <= GROWTH_LIMIT ? 'pass' : 'FAIL'
    }, rounds ${growthRounds.map((value) => value.toFixed(2)).join('/')}`,
    `X-Total at 10k ${header(m.headers.total10k)}, 100k ${header(m.headers.total100k)}, 1M ${header(m.headers.total1M)} ${xTotalOk ? 'ok' : 'WRONG'}`,
    `seeding 10k->100k ${ms(m.seeding.seed100k)}, 100k->1M ${ms(m.seeding.seed1M)}`,
    `steal ${stealPercent.toFixed(1)}%`,
    `other processes ${otherPercent.toFixed(1)}% CPU`,
    `noisy ${noisy ? 'yes' : 'no'}`,
    canPin ? `servers on core ${SERVER_CORE}, load on core ${LOAD_CORE}` : 'unpinned (no taskset or < 2 cores)',
    `-c${CONNECTIONS} ${m.seconds}s x${ROUNDS} (baseline and 10k/1M ${m.shortSeconds}s x${ROUNDS}), request log on (to a file)`,
  ];
  return { ratio: DEEP_LIMIT / deepQuotient, details: details.join(', ') };
}
