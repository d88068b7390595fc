import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { LOAD_CORE, SERVER_CORE, canPin, cpuNoise, sampleCpu } from '../lib/cpu.js';
import { count, ms } from '../lib/format.js';
import { ROOT_TOKEN, startGeoforge } from '../lib/geoforge.js';
import { gitClient, gitClientEnv, withCredentials } from '../lib/git.js';
import { assertAllOk, runLoad, type LoadResult } from '../lib/load.js';
import { interleave } from '../lib/rounds.js';
import type { Scenario } from '../lib/scenario.js';
import { tempDir } from '../lib/scope.js';
import { freePort, startServer } from '../lib/server.js';
import { roundSeconds, sized } from '../lib/settings.js';
import { median, percentile } from '../lib/stats.js';
import { repositoryPath } from '../../src/storage/layout.js';

const ROUNDS = sized(3, 1);
const GOAL = 0.8;
/** The API during clones keeps this share of its solo throughput (BENCHMARKS.md scenario 6). */
const API_GOAL = 0.8;
const NOISY_PERCENT = 10;
const API_CONNECTIONS = 10;
/** The seeded repository: a small project, a few commits of a few dozen text files. */
const COMMITS = 5;
const FILES = 30;

const TARGETS = ['geoforge', 'bridge'] as const;
type Target = (typeof TARGETS)[number];
const LABELS: Record<Target, string> = { geoforge: 'geoforge', bridge: 'http-backend bridge' };
/** The API measure's rounds: GET /projects/:id alone, then while geoforge serves clones at P = 4. */
const API_TARGETS = ['solo', 'during'] as const;
type ApiTarget = (typeof API_TARGETS)[number];
const API_LABELS: Record<ApiTarget, string> = { solo: 'alone', during: 'during P4 clones' };

interface RoundResult {
  /** Clones per second at P = 1 and P = 4. */
  readonly p1: number;
  readonly p4: number;
  /** No-op fetch latencies, ms. */
  readonly fetchP50: number;
  readonly fetchP90: number;
}

/** BENCHMARKS.md scenario 6: git clone --mirror and no-op fetch over smart HTTP against the git http-backend bridge. */
export const gitClone: Scenario = {
  name: 'git-clone',
  summary: 'git clone --mirror (P=1, P=4) and no-op fetch over smart HTTP, auth on; vs a git http-backend CGI bridge',
  async run(scope) {
    const seconds = roundSeconds();
    /** Each of the three measurements of a round (P=1, P=4, fetch) runs this long per target. */
    const phase = Math.max(1, seconds / 2);
    const dir = await tempDir(scope, 'git-clone');
    const dataDir = path.join(dir, 'data');
    const env = await gitClientEnv(dir);
    const geoforge = await startGeoforge(scope, dataDir, path.join(dir, 'geoforge.log'));
    const project = await createProject(geoforge.url, 'bench-clone');
    const ours = withCredentials(`${geoforge.url}/${project.path_with_namespace}.git`, 'root', ROOT_TOKEN);
    await seedRepository(dir, env, ours);

    const repository = repositoryPath(dataDir, project.id);
    const projectRoot = path.join(dataDir, 'repositories');
    const relative = path.relative(projectRoot, repository);
    const bridgePort = await freePort();
    const bridge = await startServer(scope, {
      name: LABELS.bridge,
      nodeArgs: ['--import', 'tsx', 'bench/baselines/git-http-backend-bridge.ts', projectRoot, String(bridgePort)],
      port: bridgePort,
      readyPath: `/${relative}/info/refs?service=git-upload-pack`,
      logFile: path.join(dir, 'bridge.log'),
    });
    const urls: Record<Target, string> = { geoforge: ours, bridge: `${bridge.url}/${relative}` };

    const work = path.join(dir, 'clones');
    let serial = 0;
    const cloneOnce = async (target: Target, background: boolean) => {
      const into = path.join(work, `${target}-${serial++}`);
      await gitClient(['clone', '--quiet', '--mirror', urls[target], into], env, undefined, background);
    };
    /**
     * Closed loop: `parallel` workers clone until `phaseSeconds` are up; clones per second of wall
     * time. `background` clients yield the load core to the API load measured beside them: what is
     * measured is the server under clones, not a load generator starved by git clients.
     */
    const clones = async (target: Target, parallel: number, phaseSeconds: number, background = false): Promise<number> => {
      await mkdir(work, { recursive: true });
      const started = performance.now();
      const deadline = started + phaseSeconds * 1000;
      let done = 0;
      await Promise.all(
        Array.from({ length: parallel }, async () => {
          while (performance.now() < deadline) {
            await cloneOnce(target, background);
            done++;
          }
        }),
      );
      const rate = done / ((performance.now() - started) / 1000);
      await rm(work, { recursive: true, force: true });
      return rate;
    };
    const mirrors: Record<Target, string> = { geoforge: path.join(dir, 'mirror-geoforge'), bridge: path.join(dir, 'mirror-bridge') };
    for (const target of TARGETS) await gitClient(['clone', '--quiet', '--mirror', urls[target], mirrors[target]], env);
    const fetches = async (target: Target, phaseSeconds: number): Promise<number[]> => {
      const deadline = performance.now() + phaseSeconds * 1000;
      const latencies: number[] = [];
      while (performance.now() < deadline) latencies.push((await gitClient(['fetch', '--quiet'], env, mirrors[target])).ms);
      return latencies;
    };

    const pids = [process.pid, geoforge.pid, bridge.pid];
    const before = sampleCpu(pids, true);
    // Warm-up: a few clones and fetches each.
    for (const target of TARGETS) {
      await clones(target, 2, Math.min(1, phase));
      await fetches(target, Math.min(1, phase));
    }
    const rounds = await interleave(TARGETS, ROUNDS, async (target, round): Promise<RoundResult> => {
      const p1 = await clones(target, 1, phase);
      const p4 = await clones(target, 4, phase);
      const latencies = await fetches(target, phase);
      const result = { p1, p4, fetchP50: percentile(latencies, 50), fetchP90: percentile(latencies, 90) };
      console.log(
        `round ${round} ${LABELS[target].padEnd(20)} clones P1 ${result.p1.toFixed(1)}/s P4 ${result.p4.toFixed(1)}/s, ` +
          `no-op fetch p50 ${ms(result.fetchP50)} p90 ${ms(result.fetchP90)} (${latencies.length} fetches)`,
      );
      return result;
    });

    // The API while geoforge serves clones at P = 4, against the API alone.
    const apiSeconds = Math.max(1, Math.round(seconds));
    const api = async (): Promise<LoadResult> => {
      const result = await runLoad({
        url: geoforge.url,
        path: () => `/api/v4/projects/${project.id}`,
        headers: { 'Private-Token': ROOT_TOKEN },
        connections: API_CONNECTIONS,
        seconds: apiSeconds,
      });
      assertAllOk('GET /api/v4/projects/:id', result);
      return result;
    };
    await api();
    // Rounds like every other measure: the API alone, then during P4 clones, interleaved; each round's ratio compares neighbours.
    const apiRounds = await interleave(API_TARGETS, ROUNDS, async (target, round) => {
      const [result, clonesPerS] = target === 'solo' ? [await api(), null] : await Promise.all([api(), clones('geoforge', 4, apiSeconds, true)]);
      console.log(`round ${round} API ${API_LABELS[target].padEnd(20)} ${count(result.rps)} req/s p99 ${ms(result.p99)}${clonesPerS === null ? '' : ` (${clonesPerS.toFixed(1)} clones/s)`}`);
      return result;
    });
    const noise = cpuNoise(before, sampleCpu(pids, true));

    const med = (target: Target, key: keyof RoundResult) => median(rounds[target].map((result) => result[key]));
    const ratiosOf = (i: number) => {
      const a = rounds.geoforge[i];
      const b = rounds.bridge[i];
      return { p1: a.p1 / b.p1, p4: a.p4 / b.p4, fetch: b.fetchP50 / a.fetchP50 };
    };
    const roundRatios = rounds.geoforge.map((_, i) => ratiosOf(i));
    const roundMin = roundRatios.map((r) => Math.min(r.p1, r.p4, r.fetch));
    const p1Ratio = med('geoforge', 'p1') / med('bridge', 'p1');
    const p4Ratio = med('geoforge', 'p4') / med('bridge', 'p4');
    const fetchRatio = med('bridge', 'fetchP50') / med('geoforge', 'fetchP50');
    const apiMedian = (target: ApiTarget) => median(apiRounds[target].map((result) => result.rps));
    const apiRatio = apiMedian('during') / apiMedian('solo');
    const apiRoundRatios = apiRounds.during.map((result, i) => result.rps / apiRounds.solo[i]!.rps);
    const noisy = noise.stealPercent > NOISY_PERCENT || noise.otherPercent > NOISY_PERCENT;
    const details = [
      `clones/s P1 ${med('geoforge', 'p1').toFixed(1)} vs ${med('bridge', 'p1').toFixed(1)} (${p1Ratio.toFixed(2)}x)`,
      `P4 ${med('geoforge', 'p4').toFixed(1)} vs ${med('bridge', 'p4').toFixed(1)} (${p4Ratio.toFixed(2)}x)`,
      `no-op fetch p50 ${ms(med('geoforge', 'fetchP50'))} vs ${ms(med('bridge', 'fetchP50'))} (${fetchRatio.toFixed(2)}x), p90 ${ms(med('geoforge', 'fetchP90'))} vs ${ms(med('bridge', 'fetchP90'))}`,
      `ratio = min of the three`,
      `rounds ${roundMin.map((ratio) => ratio.toFixed(2)).join('/')}`,
      `goal >= ${GOAL} met in ${roundMin.filter((ratio) => ratio >= GOAL).length}/${ROUNDS} rounds`,
      `API during clones ${count(apiMedian('during'))} vs solo ${count(apiMedian('solo'))} req/s (${apiRatio.toFixed(2)}x, rounds ${apiRoundRatios.map((ratio) => ratio.toFixed(2)).join('/')}, goal >= ${API_GOAL} met in ${apiRoundRatios.filter((ratio) => ratio >= API_GOAL).length}/${ROUNDS} rounds)`,
      `steal ${noise.stealPercent.toFixed(1)}%`,
      `other processes ${noise.otherPercent.toFixed(1)}% CPU`,
      `noisy ${noisy ? 'yes' : 'no'}`,
      canPin ? `servers on core ${SERVER_CORE}, git clients and load on core ${LOAD_CORE}` : 'unpinned (no taskset or < 2 cores)',
      `repo ${COMMITS} commits x ${FILES} files, ${phase}s per measurement x${ROUNDS}, bridge without auth`,
    ];
    return { ratio: Math.min(p1Ratio, p4Ratio, fetchRatio), details: details.join(', ') };
  },
};

export interface BenchProject {
  readonly id: number;
  readonly path_with_namespace: string;
}

/** A private project owned by root, created through the API (which creates its bare repository). */
export async function createProject(url: string, name: string): Promise<BenchProject> {
  const response = await fetch(`${url}/api/v4/projects`, {
    method: 'POST',
    headers: { 'Private-Token': ROOT_TOKEN, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name, path: name, visibility: 'private', default_branch: 'master' }),
  });
  const body = (await response.json()) as BenchProject;
  if (response.status !== 201) throw new Error(`creating project ${name}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

/** A few commits of text files, pushed to master over smart HTTP. */
async function seedRepository(dir: string, env: Record<string, string>, remote: string): Promise<void> {
  const work = path.join(dir, 'seed');
  await gitClient(['init', '--quiet', '-b', 'master', work], env);
  for (let commit = 1; commit <= COMMITS; commit++) {
    for (let file = 1; file <= FILES; file++) {
      await writeFile(path.join(work, `file-${file}.txt`), `commit ${commit}, file ${file}: ${'lorem ipsum dolor sit amet '.repeat(40)}\n`);
    }
    await gitClient(['add', '.'], env, work);
    await gitClient(['commit', '--quiet', '-m', `commit ${commit}`], env, work);
  }
  await gitClient(['push', '--quiet', remote, 'HEAD:refs/heads/master'], env, work);
}
