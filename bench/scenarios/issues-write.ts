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
import { growIssues, seedIssueProject } from '../lib/seed-issues.js';
import type { RunningServer } from '../lib/server.js';
import { roundSeconds, sized, WARM_UP } from '../lib/settings.js';
import { median } from '../lib/stats.js';

const CONNECTIONS = 8;
const ROUNDS = sized(3, 1);
/** BENCHMARKS.md: >= 0.5x of the raw baseline and >= 1,000 writes/s. */
const GOAL = 0.5;
const MIN_WRITES = 1_000;
const NOISY_PERCENT = 10;

/** Seeded issues the notes half comments on, one after the other, so no one issue takes every touch. */
const NOTED_ISSUES = sized(100, 10);

const SERVERS = ['geoforge', 'baseline'] as const;
type Server = (typeof SERVERS)[number];
const HALVES = ['issues', 'notes'] as const;
type Half = (typeof HALVES)[number];
type Target = `${Server} ${Half}`;
/** Each round: both servers on the issue half, then both on the notes half. */
const TARGETS: readonly Target[] = HALVES.flatMap((half) => SERVERS.map((server) => `${server} ${half}` as const));

/**
 * The `issues-write` scenario (BENCHMARKS.md, scenario 3's writes): POST
 * /api/v4/projects/:id/issues and POST /api/v4/projects/:id/issues/:issue_iid/notes as the
 * project's owner, closed loop -c8, each against express + better-sqlite3 writing the same rows in
 * one transaction, both servers on the same SQLite file with synchronous=NORMAL in WAL. An issue:
 * iid counter, issue, user agent detail, open_issues_count, `created` event. A comment: note, the issue's
 * updated_at, `commented` event (and the activity updates that only write once an hour or a day).
 * The site's capture triggers add the event-log rows of both. The ratio is the lower of the two
 * halves' medians of per-round ratios: each write has to meet the goal.
 */
export const issuesWrite: Scenario = {
  name: 'issues-write',
  summary:
    'POST /api/v4/projects/:id/issues and .../issues/:issue_iid/notes, -c8; vs express + better-sqlite3 writing the same rows and event-log rows in one transaction',
  async run(scope) {
    const seconds = roundSeconds();
    const dir = await tempDir(scope, 'issues-write');
    const dataDir = path.join(dir, 'data');
    const site = await openSeedSite(dataDir);
    const seed = await seedIssueProject(site).finally(() => site.stop());
    growIssues(siteDb(dataDir), seed, 0, NOTED_ISSUES);

    const servers: Record<Server, RunningServer> = {
      geoforge: await startGeoforge(scope, dataDir, path.join(dir, 'geoforge.log')),
      baseline: await startBaseline(scope, { name: 'express+sqlite issue and note writes', script: 'bench/baselines/issue-create-sqlite.ts', dbFile: siteDb(dataDir), readyPath: '/ready', logFile: path.join(dir, 'baseline.log') }),
    };
    const prefix: Record<Server, string> = { geoforge: '/api/v4', baseline: '' };
    const requests: Record<Half, { path: (n: number) => string; body: (n: number) => string }> = {
      issues: {
        path: () => `/projects/${seed.projectId}/issues`,
        body: (n) => JSON.stringify({ title: `Bench issue ${n}`, description: `Written by the issues-write bench, request ${n}.` }),
      },
      notes: {
        path: (n) => `/projects/${seed.projectId}/issues/${(n % NOTED_ISSUES) + 1}/notes`,
        // No @mention: the todos of mentions are writes of their own, not this one's.
        body: (n) => JSON.stringify({ body: `Comment ${n} of the issues-write bench.` }),
      },
    };
    const load = async (target: Target, loadSeconds: number) => {
      const [server, half] = target.split(' ') as [Server, Half];
      const result = await runLoad({
        url: servers[server].url,
        method: 'POST',
        path: (n) => prefix[server] + requests[half].path(n),
        body: requests[half].body,
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
    if (WARM_UP) for (const target of TARGETS) await load(target, Math.max(1, Math.round(seconds / 5)));
    const rounds = await interleave(TARGETS, ROUNDS, async (target, round) => {
      const result = await load(target, seconds);
      console.log(`round ${round} ${target.padEnd(15)} ${count(result.rps)} writes/s, p50 ${ms(result.p50)}, p99 ${ms(result.p99)}`);
      return result;
    });
    const noise = cpuNoise(before, sampleCpu(pids));
    const check = await fetch(`${servers.geoforge.url}/api/v4/projects/${seed.projectId}`, { headers: { 'Private-Token': seed.ownerToken } });
    const openIssues = ((await check.json()) as { open_issues_count: number }).open_issues_count;

    const rps = (target: Target) => median(rounds[target].map((result) => result.rps));
    const p99 = (target: Target) => median(rounds[target].map((result) => result.p99));
    const roundRatios = (half: Half) => rounds[`geoforge ${half}`].map((result, i) => result.rps / rounds[`baseline ${half}`][i].rps);
    const ratio = (half: Half) => median(roundRatios(half));
    const halfDetails = (half: Half) => {
      const [geoforge, baseline] = [`geoforge ${half}`, `baseline ${half}`] as const;
      const met = roundRatios(half).filter((value) => value >= GOAL).length;
      return [
        `${half}: ratio ${ratio(half).toFixed(2)} (rounds ${roundRatios(half).map((value) => value.toFixed(2)).join('/')}, goal >= ${GOAL} met in ${met}/${ROUNDS})`,
        `geoforge ${count(rps(geoforge))} writes/s p99 ${ms(p99(geoforge))} (${rps(geoforge) >= MIN_WRITES ? 'pass' : 'FAIL'} >= ${count(MIN_WRITES)}/s)`,
        `baseline ${count(rps(baseline))} writes/s p99 ${ms(p99(baseline))}`,
      ].join(', ');
    };
    const noisy = noise.stealPercent > NOISY_PERCENT || noise.otherPercent > NOISY_PERCENT;
    const details = [
      ...HALVES.map(halfDetails),
      `ratio = the lower of the two halves' median round ratios`,
      `open_issues_count after the run ${count(openIssues)} (the seeded issues included)`,
      `notes spread over ${NOTED_ISSUES} seeded issues`,
      'synchronous=NORMAL in WAL on both',
      `steal ${noise.stealPercent.toFixed(1)}%`,
      `other processes ${noise.otherPercent.toFixed(1)}% CPU`,
      `noisy ${noisy ? 'yes' : 'no'}`,
      canPin ? `servers on core ${SERVER_CORE}, load on core ${LOAD_CORE}` : 'unpinned (no taskset or < 2 cores)',
      `-c${CONNECTIONS} ${seconds}s x${ROUNDS} per half, as the project's owner (PAT), request log on (to a file)`,
    ];
    return { ratio: Math.min(...HALVES.map(ratio)), details: details.join(', ') } satisfies Outcome;
  },
};
