import { cp } from 'node:fs/promises';
import path from 'node:path';
import { openDatabaseReadOnly } from '../../src/db/connection.js';
import { findProjectById } from '../../src/db/tables/projects.js';
import { findUserById } from '../../src/db/tables/users.js';
import { issueListQuery, type IssueFilters } from '../../src/services/issuables/issue-lists.js';
import { LOAD_CORE, SERVER_CORE, canPin, cpuNoise, sampleCpu } from '../lib/cpu.js';
import { count, ms } from '../lib/format.js';
import { childScope, siteDb } from '../lib/geo.js';
import { openSeedSite, startGeoforge } from '../lib/geoforge.js';
import { assertAllOk, runLoad } from '../lib/load.js';
import { interleave } from '../lib/rounds.js';
import type { Outcome, Scenario } from '../lib/scenario.js';
import { tempDir } from '../lib/scope.js';
import { growIssues, seedIssueProject, type IssueProject } from '../lib/seed-issues.js';
import type { RunningServer } from '../lib/server.js';
import { roundSeconds, sized } from '../lib/settings.js';
import { median } from '../lib/stats.js';

const SMALL = sized(10_000, 200);
const LARGE = sized(1_000_000, 2_000);
const CONNECTIONS = 10;
const ROUNDS = sized(3, 1);
/** BENCHMARKS.md: page 1 at 1M issues <= 1.2x page 1 at 10k, plain and label-filtered. */
const GROWTH_LIMIT = 1.2;
const NOISY_PERCENT = 10;
/** Label 3 is on a tenth of the issues (issue n carries label n % 10). */
const LABEL = 'label-3';

const TARGETS = ['10k page 1', '1M page 1', '10k label page 1', '1M label page 1'] as const;
type Target = (typeof TARGETS)[number];

/**
 * The query plan geoforge runs for a list, read from the seeded 1M database with the services'
 * own query builder (issueListQuery): the evidence that neither list scans issues or sorts.
 */
function planOf(file: string, seed: IssueProject, filters: IssueFilters): string[] {
  const db = openDatabaseReadOnly(file);
  try {
    const user = findUserById(db, seed.ownerId)!;
    const actor = { user, via: 'personal_access_token' as const, scopes: ['api'], sudoFrom: null };
    const query = issueListQuery(db, actor, { project: findProjectById(db, seed.projectId)! }, filters)!;
    const where = [...query.candidates, ...query.residual].join(' AND ');
    const rows = db.prepare(`EXPLAIN QUERY PLAN SELECT i.* ${query.from} WHERE ${where} ORDER BY ${query.order} LIMIT 20 OFFSET 0`).all(query.params) as { detail: string }[];
    return rows.map((row) => row.detail);
  } finally {
    db.close();
  }
}

const scanFree = (plan: readonly string[]) => !plan.some((line) => /SCAN (?!json_each)|TEMP B-TREE/.test(line));

/**
 * The `issues-list` scenario (BENCHMARKS.md, scenarios added with the collaboration families;
 * scenario 2's issue list): GET /api/v4/projects/:id/issues page 1, plain and filtered by one
 * label, at 10k and at 1M issues in one project, interleaved, as the project's owner. The 10k
 * case is the baseline of the same run.
 */
export const issuesList: Scenario = {
  name: 'issues-list',
  summary: `GET /api/v4/projects/:id/issues page 1, plain and ?labels=, at ${count(SMALL)} vs ${count(LARGE)} issues in one project`,
  async run(scope) {
    const seconds = roundSeconds();
    const dir = await tempDir(scope, 'issues-list');
    const dataDir = path.join(dir, 'data');
    const smallDir = path.join(dir, 'data-10k');
    const file = siteDb(dataDir);

    let started = Date.now();
    const site = await openSeedSite(dataDir);
    const seed = await seedIssueProject(site).finally(() => site.stop());
    growIssues(file, seed, 0, SMALL);
    console.log(`seeded a project with ${count(SMALL)} issues in ${ms(Date.now() - started)}`);
    await cp(dataDir, smallDir, { recursive: true });
    started = Date.now();
    growIssues(file, seed, SMALL, LARGE);
    const seedLarge = Date.now() - started;
    console.log(`grew it to ${count(LARGE)} issues (with label links and assignees) in ${ms(seedLarge)}`);

    const plainPlan = planOf(file, seed, {});
    const labelPlan = planOf(file, seed, { labels: [LABEL] });
    console.log(`plan, page 1: ${plainPlan.join(' | ')}`);
    console.log(`plan, ?labels=${LABEL}: ${labelPlan.join(' | ')}`);

    const servers = childScope(scope);
    const small = await startGeoforge(servers, smallDir, path.join(dir, 'geoforge-10k.log'));
    const large = await startGeoforge(servers, dataDir, path.join(dir, 'geoforge-1m.log'));
    const listPath = (label: boolean) => `/api/v4/projects/${seed.projectId}/issues?per_page=20${label ? `&labels=${LABEL}` : ''}`;
    const targets: Record<Target, { server: RunningServer; path: string }> = {
      '10k page 1': { server: small, path: listPath(false) },
      '1M page 1': { server: large, path: listPath(false) },
      '10k label page 1': { server: small, path: listPath(true) },
      '1M label page 1': { server: large, path: listPath(true) },
    };
    const headers = { 'Private-Token': seed.ownerToken };
    const load = async (target: Target, loadSeconds: number) => {
      const result = await runLoad({ url: targets[target].server.url, path: () => targets[target].path, headers, connections: CONNECTIONS, seconds: loadSeconds });
      assertAllOk(target, result);
      return result;
    };
    const totals = await Promise.all(
      TARGETS.map(async (target) => {
        const response = await fetch(targets[target].server.url + targets[target].path, { headers });
        const body = (await response.json()) as unknown[];
        return `${target}: ${body.length} rows, X-Total ${response.headers.get('x-total') ?? 'absent'}`;
      }),
    );
    const pids = [process.pid, small.pid, large.pid];
    const before = sampleCpu(pids);
    for (const target of TARGETS) await load(target, 1);
    const rounds = await interleave(TARGETS, ROUNDS, async (target, round) => {
      const result = await load(target, seconds);
      console.log(`round ${round} ${target.padEnd(18)} p50 ${ms(result.p50)} (mean ${result.mean.toFixed(2)} ms), ${count(result.rps)} req/s`);
      return result;
    });
    const noise = cpuNoise(before, sampleCpu(pids));
    await servers.close();

    const mean = (target: Target) => median(rounds[target].map((result) => result.mean));
    const p50 = (target: Target) => median(rounds[target].map((result) => result.p50));
    const plainQuotient = mean('1M page 1') / mean('10k page 1');
    const labelQuotient = mean('1M label page 1') / mean('10k label page 1');
    const quotient = (large: Target, small: Target) =>
      `${mean(large).toFixed(2)}/${mean(small).toFixed(2)} ms by mean (${(mean(large) / mean(small)).toFixed(2)}x), p50 ${ms(p50(large))}/${ms(p50(small))}, ${count(median(rounds[large].map((r) => r.rps)))}/${count(median(rounds[small].map((r) => r.rps)))} req/s`;
    const roundQuotients = (large: Target, small: Target) => rounds[large].map((result, i) => (result.mean / rounds[small][i].mean).toFixed(2)).join('/');
    const noisy = noise.stealPercent > NOISY_PERCENT || noise.otherPercent > NOISY_PERCENT;
    const details = [
      `page 1 at 1M/10k ${quotient('1M page 1', '10k page 1')} ${plainQuotient <= GROWTH_LIMIT ? 'pass' : 'FAIL'} (rounds ${roundQuotients('1M page 1', '10k page 1')})`,
      `?labels=${LABEL} at 1M/10k ${quotient('1M label page 1', '10k label page 1')} ${labelQuotient <= GROWTH_LIMIT ? 'pass' : 'FAIL'} (rounds ${roundQuotients('1M label page 1', '10k label page 1')})`,
      `limit ${GROWTH_LIMIT}x, ratio = ${GROWTH_LIMIT} / the worse quotient (goal >= 1)`,
      `query plans ${scanFree(plainPlan) && scanFree(labelPlan) ? 'scan-free' : 'SCAN FOUND'}: page 1 "${plainPlan.join(' | ')}", labels "${labelPlan.join(' | ')}"`,
      totals.join('; '),
      `seeding 10k->1M ${ms(seedLarge)}`,
      `steal ${noise.stealPercent.toFixed(1)}%`,
      `other processes ${noise.otherPercent.toFixed(1)}% CPU`,
      `noisy ${noisy ? 'yes' : 'no'}`,
      canPin ? `servers on core ${SERVER_CORE}, load on core ${LOAD_CORE}` : 'unpinned (no taskset or < 2 cores)',
      `-c${CONNECTIONS} ${seconds}s x${ROUNDS}, as the project's owner (PAT), request log on (to a file)`,
    ];
    return { ratio: GROWTH_LIMIT / Math.max(plainQuotient, labelQuotient), details: details.join(', ') } satisfies Outcome;
  },
};
