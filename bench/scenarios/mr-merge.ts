import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { repositoryPath } from '../../src/storage/layout.js';
import { startBaseline } from '../lib/baseline.js';
import { LOAD_CORE, SERVER_CORE, canPin, cpuNoise, sampleCpu } from '../lib/cpu.js';
import { count, ms } from '../lib/format.js';
import { profileFlags } from '../lib/geo.js';
import { ROOT_TOKEN, startGeoforge } from '../lib/geoforge.js';
import { interleave } from '../lib/rounds.js';
import type { Outcome, Scenario } from '../lib/scenario.js';
import { tempDir } from '../lib/scope.js';
import type { RunningServer } from '../lib/server.js';
import { median, percentile } from '../lib/stats.js';
import { sized, WARM_UP } from '../lib/settings.js';

const ROUNDS = sized(3, 1);
/** BENCHMARKS.md "mr-merge": >= 0.5x of the bare git sequence. */
const GOAL = 0.5;
const NOISY_PERCENT = 10;
/** Files each merge request's one commit adds. */
const FILES = 10;
/** Merge requests per round (BENCH_MR_MERGES), and before the rounds to warm up. */
const PER_ROUND = Number(process.env.BENCH_MR_MERGES || sized(20, 2));
const WARMUP = sized(5, 0);
/** How often the client asks whether the background mergeability check is done. */
const POLL_MS = 5;

const TARGETS = ['geoforge', 'baseline'] as const;
type Target = (typeof TARGETS)[number];

interface RoundResult {
  readonly perSecond: number;
  readonly p50: number;
  readonly p90: number;
}

/**
 * The `mr-merge` scenario (BENCHMARKS.md): merge requests per second, one at a time, each with one
 * commit adding 10 files on its own branch, through the whole path a client sees: POST
 * /projects/:id/merge_requests (the diff version recorded), GETs until the background check
 * stored `can_be_merged` (merge-tree, the merge ref), then PUT .../merge (the merge commit, the
 * compare-and-swap, the after-push path: events, Geo event, the other merge requests' checks).
 * The baseline is a node:http server running just the git sequence of a merge (rev-parse,
 * merge-tree --write-tree, commit-tree, update-ref with the old value) on a mirror of the same
 * repository, taken before either side merged anything. Rounds interleave, each side merging
 * its own fresh branches.
 */
export const mrMerge: Scenario = {
  name: 'mr-merge',
  summary: 'create + mergeability + accept of a 1-commit, 10-file merge request, one at a time; vs the bare merge-tree/commit-tree/update-ref sequence',
  async run(scope) {
    const dir = await tempDir(scope, 'mr-merge');
    const dataDir = path.join(dir, 'data');
    const geoforge = await startGeoforge(scope, dataDir, path.join(dir, 'geoforge.log'), profileFlags());
    if (profileFlags().length) console.log(`profiling into ${process.env.BENCH_CPU_PROF}: geoforge pid ${geoforge.pid}`);
    const api = async (method: string, pathAndQuery: string, body?: unknown) => {
      const response = await fetch(`${geoforge.url}/api/v4${pathAndQuery}`, {
        method,
        headers: { 'Private-Token': ROOT_TOKEN, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      if (response.status >= 300) throw new Error(`${method} ${pathAndQuery}: ${response.status} ${text}`);
      return JSON.parse(text) as Record<string, any>;
    };

    // Seed: a project with ten files on master, then every branch either side will merge, each
    // one commit adding ten files of its own (so no merge conflicts with another).
    const project = await api('POST', '/projects', { name: 'mr-merge' });
    const files = (prefix: string) => Array.from({ length: FILES }, (_, i) => ({ action: 'create', file_path: `${prefix}/file-${i}.txt`, content: `${prefix} ${i}\n`.repeat(20) }));
    await api('POST', `/projects/${project.id}/repository/commits`, { branch: 'master', commit_message: 'seed', actions: files('seed') });
    const branchesPerSide = WARMUP + ROUNDS * PER_ROUND;
    const branchName = (target: Target, n: number) => `${target}-${n}`;
    for (const target of TARGETS) {
      for (let n = 0; n < branchesPerSide; n += 1) {
        const branch = branchName(target, n);
        await api('POST', `/projects/${project.id}/repository/commits`, { branch, start_branch: 'master', commit_message: `change ${branch}`, actions: files(branch) });
      }
    }
    const mirror = path.join(dir, 'baseline.git');
    execFileSync('git', ['clone', '--quiet', '--mirror', repositoryPath(dataDir, project.id), mirror]);
    const baseline = await startBaseline(scope, { name: 'bare git merge sequence', script: 'bench/baselines/merge-sequence.ts', dbFile: mirror, readyPath: '/ready', logFile: path.join(dir, 'baseline.log') });
    const servers: Record<Target, RunningServer> = { geoforge, baseline };

    /** Where geoforge's time goes, per merge request: the create, the wait for the check, the accept. */
    const phases = { create: [] as number[], check: [] as number[], accept: [] as number[] };
    const mergeOne: Record<Target, (branch: string) => Promise<void>> = {
      geoforge: async (branch) => {
        let at = performance.now();
        const lap = (phase: keyof typeof phases) => {
          const now = performance.now();
          phases[phase].push(now - at);
          at = now;
        };
        const created = await api('POST', `/projects/${project.id}/merge_requests`, { source_branch: branch, target_branch: 'master', title: `Merge ${branch}` });
        lap('create');
        let status = created.merge_status as string;
        while (status === 'unchecked') {
          await new Promise((resolve) => setTimeout(resolve, POLL_MS));
          status = (await api('GET', `/projects/${project.id}/merge_requests/${created.iid}`)).merge_status as string;
        }
        if (status !== 'can_be_merged') throw new Error(`${branch}: ${status}`);
        lap('check');
        const merged = await api('PUT', `/projects/${project.id}/merge_requests/${created.iid}/merge`, {});
        if (merged.state !== 'merged') throw new Error(`${branch}: ${merged.state}`);
        lap('accept');
      },
      baseline: async (branch) => {
        const response = await fetch(`${baseline.url}/merge?branch=${encodeURIComponent(branch)}`, { method: 'POST' });
        const text = await response.text();
        if (response.status !== 200) throw new Error(`baseline ${branch}: ${response.status} ${text}`);
      },
    };
    const next: Record<Target, number> = { geoforge: 0, baseline: 0 };
    const mergeMany = async (target: Target, n: number): Promise<RoundResult> => {
      const times: number[] = [];
      const start = performance.now();
      for (let i = 0; i < n; i += 1) {
        const began = performance.now();
        await mergeOne[target](branchName(target, next[target]++));
        times.push(performance.now() - began);
      }
      return { perSecond: n / ((performance.now() - start) / 1000), p50: percentile(times, 50), p90: percentile(times, 90) };
    };

    const pids = [process.pid, geoforge.pid, baseline.pid];
    const before = sampleCpu(pids, true);
    if (WARM_UP) for (const target of TARGETS) await mergeMany(target, WARMUP);
    const rounds = await interleave(TARGETS, ROUNDS, async (target, round) => {
      const result = await mergeMany(target, PER_ROUND);
      console.log(`round ${round} ${target.padEnd(9)} ${result.perSecond.toFixed(1)} merge requests/s, p50 ${ms(result.p50)}, p90 ${ms(result.p90)}`);
      return result;
    });
    const noise = cpuNoise(before, sampleCpu(pids, true));
    // Both sides merged the same number of branches into master: same first-parent length.
    const chain = (repository: string) => Number(execFileSync('git', ['--git-dir', repository, 'rev-list', '--count', '--first-parent', 'refs/heads/master']).toString().trim());

    const roundRatios = rounds.geoforge.map((result, i) => result.perSecond / rounds.baseline[i]!.perSecond);
    const ratio = median(roundRatios);
    const met = roundRatios.filter((value) => value >= GOAL).length;
    const figure = (target: Target) => {
      const results = rounds[target];
      return `${target} ${median(results.map((result) => result.perSecond)).toFixed(1)}/s p50 ${ms(median(results.map((result) => result.p50)))} p90 ${ms(median(results.map((result) => result.p90)))}`;
    };
    const noisy = noise.stealPercent > NOISY_PERCENT || noise.otherPercent > NOISY_PERCENT;
    const details = [
      `rounds ${roundRatios.map((value) => value.toFixed(2)).join('/')}, goal >= ${GOAL} met in ${met}/${ROUNDS}`,
      figure('geoforge'),
      figure('baseline'),
      `geoforge phases p50: create ${ms(percentile(phases.create, 50))}, check ${ms(percentile(phases.check, 50))}, accept ${ms(percentile(phases.accept, 50))}`,
      `first-parent length of master: geoforge ${count(chain(repositoryPath(dataDir, project.id)))}, baseline ${count(chain(mirror))}`,
      `${PER_ROUND} merge requests per round x${ROUNDS} after ${WARMUP} warm-up, ${FILES} files each, checks polled every ${POLL_MS} ms`,
      `steal ${noise.stealPercent.toFixed(1)}%`,
      `other processes ${noise.otherPercent.toFixed(1)}% CPU`,
      `noisy ${noisy ? 'yes' : 'no'}`,
      canPin ? `servers on core ${SERVER_CORE}, client on core ${LOAD_CORE}` : 'unpinned (no taskset or < 2 cores)',
      `servers: ${Object.values(servers).map((server) => server.name).join(' vs ')}`,
    ];
    return { ratio, details: details.join(', ') } satisfies Outcome;
  },
};
