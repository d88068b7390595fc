import { cp } from 'node:fs/promises';
import path from 'node:path';
import { openDatabaseReadOnly } from '../../src/db/connection.js';
import { findProjectById } from '../../src/db/tables/projects.js';
import { findUserById } from '../../src/db/tables/users.js';
import { mergeRequestListQuery } from '../../src/services/merge-requests/lists.js';
import { LOAD_CORE, SERVER_CORE, canPin, cpuNoise, sampleCpu } from '../lib/cpu.js';
import { count, ms } from '../lib/format.js';
import { childScope, siteDb } from '../lib/geo.js';
import { openSeedSite, startGeoforge } from '../lib/geoforge.js';
import { assertAllOk, runLoad } from '../lib/load.js';
import { interleave } from '../lib/rounds.js';
import type { Outcome, Scenario } from '../lib/scenario.js';
import { tempDir } from '../lib/scope.js';
import { growMergeRequests, seedMergeRequestProject, type MergeRequestProject } from '../lib/seed-merge-requests.js';
import type { RunningServer } from '../lib/server.js';
import { roundSeconds, sized } from '../lib/settings.js';
import { median } from '../lib/stats.js';

const SMALL = sized(100, 20);
const LARGE = sized(100_000, 500);
/** The merge request whose `changes` are measured changes this many files (BENCHMARKS.md: the 1,000-file merge request). */
const FILES = sized(1_000, 20);
const CONNECTIONS = 10;
const ROUNDS = sized(3, 1);
/** BENCHMARKS.md `mr-list`: page 1 at 100,000 merge requests <= 1.2x page 1 at 100. */
const GROWTH_LIMIT = 1.2;
/** Issue 15: the changes of a 1,000-file merge request answer in under 100 ms p50. */
const CHANGES_LIMIT_MS = 100;
const NOISY_PERCENT = 10;

const TARGETS = ['100 page 1', '100k page 1', 'changes of 1,000 files'] as const;
type Target = (typeof TARGETS)[number];

/** The query plan of page 1, read from the seeded 100k database with the service's own query builder. */
function planOf(file: string, seed: MergeRequestProject): string[] {
  const db = openDatabaseReadOnly(file);
  try {
    const user = findUserById(db, seed.ownerId)!;
    const actor = { user, via: 'personal_access_token' as const, scopes: ['api'], sudoFrom: null };
    const query = mergeRequestListQuery(db, actor, { project: findProjectById(db, seed.projectId)! }, { scope: 'all' })!;
    const where = [...query.candidates, ...query.residual].join(' AND ');
    const rows = db.prepare(`EXPLAIN QUERY PLAN SELECT m.* ${query.from} WHERE ${where} ORDER BY ${query.order} LIMIT 20 OFFSET 0`).all(query.params) as { detail: string }[];
    return rows.map((row) => row.detail);
  } finally {
    db.close();
  }
}

const scanFree = (plan: readonly string[]) => !plan.some((line) => /SCAN (?!json_each)|TEMP B-TREE/.test(line));

/**
 * The `mr-list` scenario (BENCHMARKS.md): GET /api/v4/projects/:id/merge_requests page 1 at 100
 * and at 100,000 merge requests in one project, interleaved, as the project's owner; the 100 case
 * is the baseline of the same run. It also measures GET .../merge_requests/:iid/changes of a
 * merge request whose version changes 1,000 files (issue 15: p50 under 100 ms), made through the
 * merge request service on a real repository.
 */
export const mrList: Scenario = {
  name: 'mr-list',
  summary: `GET /api/v4/projects/:id/merge_requests page 1 at ${count(SMALL)} vs ${count(LARGE)} merge requests, and the changes of a ${count(FILES)}-file merge request`,
  async run(scope) {
    const seconds = roundSeconds();
    const dir = await tempDir(scope, 'mr-list');
    const dataDir = path.join(dir, 'data');
    const smallDir = path.join(dir, 'data-100');
    const file = siteDb(dataDir);

    let started = Date.now();
    const site = await openSeedSite(dataDir);
    const seed = await seedMergeRequestProject(site, FILES).finally(() => site.stop());
    growMergeRequests(file, seed, SMALL);
    console.log(`seeded a project with ${count(SMALL)} merge requests (one of ${count(FILES)} files, through the service) in ${ms(Date.now() - started)}`);
    await cp(dataDir, smallDir, { recursive: true });
    started = Date.now();
    growMergeRequests(file, seed, LARGE);
    const seedLarge = Date.now() - started;
    console.log(`grew it to ${count(LARGE)} merge requests in ${ms(seedLarge)}`);
    const plan = planOf(file, seed);
    console.log(`plan, page 1: ${plan.join(' | ')}`);

    const servers = childScope(scope);
    const small = await startGeoforge(servers, smallDir, path.join(dir, 'geoforge-100.log'));
    const large = await startGeoforge(servers, dataDir, path.join(dir, 'geoforge-100k.log'));
    const listPath = `/api/v4/projects/${seed.projectId}/merge_requests?per_page=20`;
    const targets: Record<Target, { server: RunningServer; path: string }> = {
      '100 page 1': { server: small, path: listPath },
      '100k page 1': { server: large, path: listPath },
      'changes of 1,000 files': { server: large, path: `/api/v4/projects/${seed.projectId}/merge_requests/${seed.bigIid}/changes` },
    };
    const headers = { 'Private-Token': seed.ownerToken };
    const load = async (target: Target, loadSeconds: number) => {
      // One connection for the changes: its latency alone, not a queue of 200 KiB answers.
      const connections = target === 'changes of 1,000 files' ? 1 : CONNECTIONS;
      const result = await runLoad({ url: targets[target].server.url, path: () => targets[target].path, headers, connections, seconds: loadSeconds });
      assertAllOk(target, result);
      return result;
    };
    const shapes = await Promise.all(
      TARGETS.map(async (target) => {
        const response = await fetch(targets[target].server.url + targets[target].path, { headers });
        const body = (await response.json()) as unknown[] | { changes: unknown[]; changes_count: string };
        return Array.isArray(body)
          ? `${target}: ${body.length} rows, X-Total ${response.headers.get('x-total') ?? 'absent'}`
          : `${target}: ${body.changes.length} files, changes_count ${body.changes_count}, ${count(Number(response.headers.get('content-length') ?? 0) / 1024)} KiB`;
      }),
    );
    const pids = [process.pid, small.pid, large.pid];
    const before = sampleCpu(pids);
    for (const target of TARGETS) await load(target, 1);
    const rounds = await interleave(TARGETS, ROUNDS, async (target, round) => {
      const result = await load(target, seconds);
      console.log(`round ${round} ${target.padEnd(24)} p50 ${ms(result.p50)} (mean ${result.mean.toFixed(2)} ms), ${count(result.rps)} req/s`);
      return result;
    });
    const noise = cpuNoise(before, sampleCpu(pids));
    await servers.close();

    const mean = (target: Target) => median(rounds[target].map((result) => result.mean));
    const p50 = (target: Target) => median(rounds[target].map((result) => result.p50));
    const quotient = mean('100k page 1') / mean('100 page 1');
    const changesP50 = p50('changes of 1,000 files');
    const noisy = noise.stealPercent > NOISY_PERCENT || noise.otherPercent > NOISY_PERCENT;
    const details = [
      `page 1 at 100k/100 ${mean('100k page 1').toFixed(2)}/${mean('100 page 1').toFixed(2)} ms by mean (${quotient.toFixed(2)}x), p50 ${ms(p50('100k page 1'))}/${ms(p50('100 page 1'))}, ` +
        `${count(median(rounds['100k page 1'].map((r) => r.rps)))}/${count(median(rounds['100 page 1'].map((r) => r.rps)))} req/s ${quotient <= GROWTH_LIMIT ? 'pass' : 'FAIL'} ` +
        `(rounds ${rounds['100k page 1'].map((result, i) => (result.mean / rounds['100 page 1'][i].mean).toFixed(2)).join('/')})`,
      `limit ${GROWTH_LIMIT}x, ratio = ${GROWTH_LIMIT} / the quotient (goal >= 1)`,
      `changes of ${count(FILES)} files p50 ${changesP50.toFixed(1)} ms (mean ${mean('changes of 1,000 files').toFixed(1)} ms, -c1) ${changesP50 < CHANGES_LIMIT_MS ? 'pass' : 'FAIL'} (limit < ${CHANGES_LIMIT_MS} ms)`,
      `query plan ${scanFree(plan) ? 'scan-free' : 'SCAN FOUND'}: "${plan.join(' | ')}"`,
      shapes.join('; '),
      `seeding 100->100k ${ms(seedLarge)}`,
      `steal ${noise.stealPercent.toFixed(1)}%`,
      `other processes ${noise.otherPercent.toFixed(1)}% CPU`,
      `noisy ${noisy ? 'yes' : 'no'}`,
      canPin ? `servers on core ${SERVER_CORE}, load on core ${LOAD_CORE}` : 'unpinned (no taskset or < 2 cores)',
      `-c${CONNECTIONS} ${seconds}s x${ROUNDS}, as the project's owner (PAT), request log on (to a file)`,
    ];
    return { ratio: GROWTH_LIMIT / quotient, details: details.join(', ') } satisfies Outcome;
  },
};
