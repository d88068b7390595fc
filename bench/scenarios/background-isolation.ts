import { execFile } from 'node:child_process';
import { cp } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { findUserNamespace } from '../../src/db/tables/namespaces.js';
import { findUserById } from '../../src/db/tables/users.js';
import { createProject } from '../../src/services/projects/create.js';
import { repositoryPath } from '../../src/storage/layout.js';
import { endpointP90s, masterHead, mixEndpoints, openLoop, seedMixData, type LevelResult, type MixData } from '../lib/api-mix.js';
import { LOAD_CORE, SERVER_CORE, canPin, cpuNoise, sampleCpu } from '../lib/cpu.js';
import { count, ms } from '../lib/format.js';
import { childScope, siteDb } from '../lib/geo.js';
import { openSeedSite, ROOT_TOKEN, startGeoforge } from '../lib/geoforge.js';
import { growMergeRequests } from '../lib/seed-merge-requests.js';
import { interleave } from '../lib/rounds.js';
import type { Scenario } from '../lib/scenario.js';
import { tempDir, type Scope } from '../lib/scope.js';
import { roundSeconds, sized, WARM_UP } from '../lib/settings.js';
import { median } from '../lib/stats.js';

const run = promisify(execFile);

/** gpt-mix's data. */
const SIZES = { users: sized(1_000, 20), projects: sized(5_000, 50), issues: sized(100_000, 500), mergeRequests: sized(10_000, 50) };
/** Merge requests of the checked project: 10,000 open (growMergeRequests closes a tenth and merges a tenth). */
const CHECKED = sized(12_500, 50);
/** GitLab's 10k-user level. */
const RATE = 200;
const WARMUP_RATE = 20;
const WARMUP_SECONDS = 5;
const ROUNDS = sized(3, 1);
/** Issue 27: the API p90 with the checks running stays within 1.5x of the quiet run's. */
const GOAL_FACTOR = 1.5;
const NOISY_PERCENT = 10;
/** The site marks the merge requests unchecked after the push's answer; it has this long to start. */
const CHECKS_START_MS = 30_000;
/** Fixed commit times, so a seed is the same whatever the clock. */
const EPOCH_S = 1_600_000_000;

const TARGETS = ['quiet', 'busy'] as const;

interface CheckedProject {
  readonly projectId: number;
  /** Its path with namespace, for git. */
  readonly path: string;
}
type Target = (typeof TARGETS)[number];

interface Run {
  readonly level: LevelResult;
  /** busy only: merge requests checked during the load, and those still unchecked at its end. */
  readonly checked: { readonly during: number; readonly left: number } | null;
  readonly otherPercent: number;
}

/** Seconds per measured run: gpt-mix's level length (60 x BENCH_SECONDS / 10; 2 under BENCH_SMOKE). */
const runSeconds = (): number => sized(Math.max(1, Math.round((60 * roundSeconds()) / 10)), 2);

/**
 * Issue 27: the API mix of gpt-mix in an open loop at 200 requests/s while the site checks the
 * mergeability of every open merge request into master in the background (10,000 at full size),
 * against the same run with no background work. Each run starts a site on a fresh copy of the
 * seeded data dir; the busy run pushes a commit to master first, which is how the site comes to
 * check them all (the after-push path marks every open merge request into the branch unchecked
 * and queues its check), the quiet one pushes to a branch no merge request uses.
 */
export const backgroundIsolation: Scenario = {
  name: 'background-isolation',
  summary: `gpt-mix's API mix at ${RATE} req/s while ${count((CHECKED * 4) / 5)} merge requests are checked in the background; vs the same run with none`,
  async run(scope) {
    const seconds = runSeconds();
    const dir = await tempDir(scope, 'background-isolation');
    const seedDir = path.join(dir, 'seed');
    const started = Date.now();
    const data = await seedMixData(seedDir, SIZES);
    const checks = await seedCheckedProject(seedDir);
    const seedMs = Date.now() - started;
    console.log(`seeded gpt-mix's data and ${count(CHECKED)} merge requests with their source branches in ${checks.path} in ${ms(seedMs)}`);

    const runs = await interleave(TARGETS, ROUNDS, async (target, round) => {
      const outcome = await measure(scope, dir, seedDir, data, checks, target, `${target}-${round}`, seconds);
      const checked = outcome.checked ? `, ${count(outcome.checked.during)} merge requests checked during the run (${count(outcome.checked.left)} left)` : '';
      console.log(
        `round ${round} ${target.padEnd(5)} ${RATE} req/s: achieved ${outcome.level.achieved.toFixed(1)}/s, success ${(outcome.level.success * 100).toFixed(2)} %, ` +
          `p50 ${outcome.level.p50.toFixed(1)} ms, p90 ${outcome.level.p90.toFixed(1)} ms${checked} (other processes ${outcome.otherPercent.toFixed(1)} %)`,
      );
      console.log(`  slowest p90: ${endpointP90s(outcome.level)}`);
      return outcome;
    });

    const p90 = (target: Target) => median(runs[target].map((one) => one.level.p90));
    const roundRatios = runs.quiet.map((quiet, i) => (GOAL_FACTOR * quiet.level.p90) / runs.busy[i]!.level.p90);
    const noisy = [...runs.quiet, ...runs.busy].some((one) => one.otherPercent > NOISY_PERCENT);
    const checkedPerRun = runs.busy.map((one) => one.checked!.during);
    const details = [
      `p90 quiet ${p90('quiet').toFixed(1)} ms, busy ${p90('busy').toFixed(1)} ms (busy/quiet ${(p90('busy') / p90('quiet')).toFixed(2)}x)`,
      `ratio = ${GOAL_FACTOR} x quiet p90 / busy p90 (goal >= 1), rounds ${roundRatios.map((ratio) => ratio.toFixed(2)).join('/')}, met in ${roundRatios.filter((ratio) => ratio >= 1).length}/${ROUNDS}`,
      `success quiet ${pct(runs.quiet)} %, busy ${pct(runs.busy)} %`,
      `merge requests checked per busy run ${checkedPerRun.map(count).join('/')}`,
      `${count(SIZES.projects)} projects, ${count(SIZES.issues)} issues, ${count(SIZES.mergeRequests)} merge requests in the mix and ${count(CHECKED)} in the checked project, seeded in ${ms(seedMs)}`,
      `${seconds} s per run after ${WARM_UP ? `${WARMUP_SECONDS} s at ${WARMUP_RATE}/s` : 'no warm-up'}, each run on a fresh site and copy of the data`,
      `noisy ${noisy ? 'yes' : 'no'}`,
      canPin ? `site on core ${SERVER_CORE}, load on core ${LOAD_CORE}` : 'unpinned (no taskset or < 2 cores)',
    ];
    return { ratio: GOAL_FACTOR * (p90('quiet') / p90('busy')), details: details.join(', ') };
  },
};

const pct = (runs: readonly Run[]): string => median(runs.map((one) => one.level.success * 100)).toFixed(2);

/**
 * The project whose merge requests are checked, apart from the mix's (whose repository endpoints
 * would otherwise list and advertise 12,500 branches): root's public `checks`, its merge requests
 * grown into master from branches `topic-<iid>` that exist, each one commit on master adding a
 * file of its own (one `git fast-import`), so each check is a real merge (merge-tree,
 * commit-tree, the merge ref). They start as checked against master's head, so a site started on
 * the data has nothing to check until master moves.
 */
async function seedCheckedProject(dataDir: string): Promise<CheckedProject> {
  const site = await openSeedSite(dataDir);
  const project = await (async () => {
    const root = findUserById(site.db, 1)!;
    const actor = { user: root, via: 'personal_access_token' as const, scopes: ['api'], sudoFrom: null };
    return createProject(site.ctx, { actor, creatorId: root.id, namespace: findUserNamespace(site.db, root.id)! }, { name: 'Checks', path: 'checks', visibility: 'public' });
  })().finally(() => site.stop());
  const gitDir = repositoryPath(dataDir, project.id);
  const commit = (ref: string, file: string, from: string | null) =>
    `commit ${ref}\ncommitter Bench <bench@example.com> ${EPOCH_S} +0000\ndata ${file.length}\n${file}\n${from ? `from ${from}\n` : ''}M 644 inline ${file}\ndata ${file.length + 1}\n${file}\n\n`;
  const stream = [commit('refs/heads/master', 'README.md', null)];
  for (let iid = 1; iid <= CHECKED; iid++) stream.push(commit(`refs/heads/topic-${iid}`, `topics/topic-${iid}.txt`, 'refs/heads/master'));
  await gitWithInput(['--git-dir', gitDir, 'fast-import', '--quiet'], stream.join(''));
  await run('git', ['--git-dir', gitDir, 'pack-refs', '--all']);
  growMergeRequests(siteDb(dataDir), { projectId: project.id, ownerId: 1, ownerToken: '', bigIid: 0, files: 0 }, CHECKED);
  const master = await masterHead(dataDir, project.id);
  const db = new Database(siteDb(dataDir), { fileMustExist: true });
  try {
    db.prepare("UPDATE merge_requests SET merge_status = 'cannot_be_merged', merge_status_target_sha = ? WHERE target_project_id = ? AND state = 'opened'").run(master, project.id);
  } finally {
    db.close();
  }
  return { projectId: project.id, path: 'root/checks' };
}

function gitWithInput(args: string[], input: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile('git', args, { maxBuffer: 64 * 1024 * 1024 }, (error) => (error ? reject(error) : resolve()));
    child.stdin!.end(input);
  });
}

/** One run: a site on a fresh copy of the seed, the warm-up, a push to the checked project (to master when busy), then the measured open loop. */
async function measure(scope: Scope, dir: string, seedDir: string, data: MixData, checks: CheckedProject, target: Target, name: string, seconds: number): Promise<Run> {
  const dataDir = path.join(dir, name);
  await cp(seedDir, dataDir, { recursive: true });
  const servers = childScope(scope);
  try {
    const server = await startGeoforge(servers, dataDir, path.join(dir, `${name}.log`));
    const work = path.join(dir, `${name}-work`);
    const { endpoints, missing } = await mixEndpoints(servers, server.url, data, work);
    if (missing.length) throw new Error(`not 2xx before the load: ${missing.join(', ')}`);
    // A clone of the checked project's master, to push from.
    const pusher = path.join(dir, `${name}-checks`);
    const git = (args: string[]) => run('git', args, { cwd: pusher, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
    await run('git', ['clone', '--quiet', '--single-branch', '--branch', 'master', `${server.url.replace('://', `://root:${ROOT_TOKEN}@`)}/${checks.path}.git`, pusher]);
    await git(['-c', 'user.email=bench@example.com', '-c', 'user.name=Bench', 'commit', '--quiet', '--allow-empty', '-m', 'Move master']);
    if (WARM_UP) await openLoop(endpoints, WARMUP_RATE, WARMUP_SECONDS);
    const progress = checkProgress(dataDir, checks.projectId);
    servers.defer(() => progress.close());
    await git(['push', '--quiet', 'origin', `HEAD:refs/heads/${target === 'busy' ? 'master' : 'quiet'}`]);
    const master = await masterHead(dataDir, checks.projectId);
    // The checks have begun once one merge request is unchecked or checked against the new head.
    if (target === 'busy') {
      const deadline = Date.now() + CHECKS_START_MS;
      while (progress.unchecked() === 0 && progress.checkedOn(master) === 0) {
        if (Date.now() > deadline) throw new Error(`no merge request went back to unchecked within ${CHECKS_START_MS} ms of the push to master`);
        await sleep(20);
      }
    }
    const checkedBefore = progress.checkedOn(master);
    const pids = [process.pid, server.pid];
    const before = sampleCpu(pids);
    const level = await openLoop(endpoints, RATE, seconds);
    const noise = cpuNoise(before, sampleCpu(pids));
    if (level.ok === 0) throw new Error(`${name}: no request succeeded`);
    const checked = target === 'busy' ? { during: progress.checkedOn(master) - checkedBefore, left: progress.unchecked() } : null;
    return { level, checked, otherPercent: noise.otherPercent };
  } finally {
    await servers.close();
  }
}

/** The project's open merge requests still `unchecked`, and those checked against a target head, read through a read-only connection to the site's file. */
function checkProgress(dataDir: string, projectId: number): { unchecked(): number; checkedOn(targetSha: string): number; close(): void } {
  const db = new Database(siteDb(dataDir), { readonly: true, fileMustExist: true });
  const unchecked = db.prepare("SELECT count(*) FROM merge_requests WHERE target_project_id = ? AND state = 'opened' AND merge_status = 'unchecked'").pluck();
  const checkedOn = db.prepare("SELECT count(*) FROM merge_requests WHERE target_project_id = ? AND state = 'opened' AND merge_status != 'unchecked' AND merge_status_target_sha = ?").pluck();
  return { unchecked: () => unchecked.get(projectId) as number, checkedOn: (sha) => checkedOn.get(projectId, sha) as number, close: () => db.close() };
}
