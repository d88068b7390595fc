import path from 'node:path';
import { startBaseline } from '../lib/baseline.js';
import { LOAD_CORE, SERVER_CORE, canPin, cpuNoise, sampleCpu } from '../lib/cpu.js';
import { count, ms } from '../lib/format.js';
import { siteDb } from '../lib/geo.js';
import { openSeedSite, startGeoforge } from '../lib/geoforge.js';
import { assertAllOk, runLoad } from '../lib/load.js';
import { interleave } from '../lib/rounds.js';
import type { Outcome, Scenario } from '../lib/scenario.js';
import { tempDir } from '../lib/scope.js';
import { seedIssueProject } from '../lib/seed-issues.js';
import type { RunningServer } from '../lib/server.js';
import { roundSeconds } from '../lib/settings.js';
import { median } from '../lib/stats.js';

const CONNECTIONS = 8;
const ROUNDS = 3;
/** BENCHMARKS.md: >= 0.5x of the raw baseline and >= 1,000 writes/s. */
const GOAL = 0.5;
const MIN_WRITES = 1_000;
const NOISY_PERCENT = 10;

const TARGETS = ['geoforge', 'baseline'] as const;
type Target = (typeof TARGETS)[number];

/**
 * The `issues-write` scenario (BENCHMARKS.md, scenario 3's issue write): POST
 * /api/v4/projects/:id/issues as the project's owner, closed loop -c8, against express +
 * better-sqlite3 writing the same rows (iid counter, issue, user agent detail, open_issues_count,
 * and through the site's capture triggers their event-log rows) in one transaction, both on the
 * same SQLite file with synchronous=NORMAL in WAL. POST .../notes, the scenario's other write,
 * waits for the notes API (issue 14, item 4).
 */
export const issuesWrite: Scenario = {
  name: 'issues-write',
  summary: 'POST /api/v4/projects/:id/issues, -c8; vs express + better-sqlite3 writing the same rows and event-log rows in one transaction',
  async run(scope) {
    const seconds = roundSeconds();
    const dir = await tempDir(scope, 'issues-write');
    const dataDir = path.join(dir, 'data');
    const site = await openSeedSite(dataDir);
    const seed = await seedIssueProject(site).finally(() => site.stop());

    const servers: Record<Target, RunningServer> = {
      geoforge: await startGeoforge(scope, dataDir, path.join(dir, 'geoforge.log')),
      baseline: await startBaseline(scope, { name: 'express+sqlite issue create', script: 'bench/baselines/issue-create-sqlite.ts', dbFile: siteDb(dataDir), readyPath: '/ready', logFile: path.join(dir, 'baseline.log') }),
    };
    const prefix: Record<Target, string> = { geoforge: '/api/v4', baseline: '' };
    const load = async (target: Target, loadSeconds: number) => {
      const result = await runLoad({
        url: servers[target].url,
        method: 'POST',
        path: () => `${prefix[target]}/projects/${seed.projectId}/issues`,
        body: (n) => JSON.stringify({ title: `Bench issue ${n}`, description: `Written by the issues-write bench, request ${n}.` }),
        // Both get the same request bytes; only geoforge reads the token.
        headers: { 'Private-Token': seed.ownerToken, 'Content-Type': 'application/json' },
        connections: CONNECTIONS,
        seconds: loadSeconds,
      });
      assertAllOk(target, result);
      return result;
    };
    const pids = [process.pid, servers.geoforge.pid, servers.baseline.pid];
    const before = sampleCpu(pids);
    for (const target of TARGETS) await load(target, Math.max(1, Math.round(seconds / 5)));
    const rounds = await interleave(TARGETS, ROUNDS, async (target, round) => {
      const result = await load(target, seconds);
      console.log(`round ${round} ${target.padEnd(9)} ${count(result.rps)} writes/s, p50 ${ms(result.p50)}, p99 ${ms(result.p99)}`);
      return result;
    });
    const noise = cpuNoise(before, sampleCpu(pids));
    const check = await fetch(`${servers.geoforge.url}/api/v4/projects/${seed.projectId}`, { headers: { 'Private-Token': seed.ownerToken } });
    const openIssues = ((await check.json()) as { open_issues_count: number }).open_issues_count;

    const rps = (target: Target) => median(rounds[target].map((result) => result.rps));
    const p99 = (target: Target) => median(rounds[target].map((result) => result.p99));
    const roundRatios = rounds.geoforge.map((result, i) => result.rps / rounds.baseline[i].rps);
    const noisy = noise.stealPercent > NOISY_PERCENT || noise.otherPercent > NOISY_PERCENT;
    const details = [
      `geoforge ${count(rps('geoforge'))} writes/s p99 ${ms(p99('geoforge'))} (${rps('geoforge') >= MIN_WRITES ? 'pass' : 'FAIL'} >= ${count(MIN_WRITES)}/s)`,
      `baseline ${count(rps('baseline'))} writes/s p99 ${ms(p99('baseline'))}`,
      `rounds ${roundRatios.map((ratio) => ratio.toFixed(2)).join('/')}, goal >= ${GOAL} met in ${roundRatios.filter((ratio) => ratio >= GOAL).length}/${ROUNDS}`,
      `open_issues_count after the run ${count(openIssues)}`,
      'POST .../notes not measured (no notes API yet)',
      'synchronous=NORMAL in WAL on both',
      `steal ${noise.stealPercent.toFixed(1)}%`,
      `other processes ${noise.otherPercent.toFixed(1)}% CPU`,
      `noisy ${noisy ? 'yes' : 'no'}`,
      canPin ? `servers on core ${SERVER_CORE}, load on core ${LOAD_CORE}` : 'unpinned (no taskset or < 2 cores)',
      `-c${CONNECTIONS} ${seconds}s x${ROUNDS}, as the project's owner (PAT), request log on (to a file)`,
    ];
    return { ratio: rps('geoforge') / rps('baseline'), details: details.join(', ') } satisfies Outcome;
  },
};
