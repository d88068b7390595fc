import { spawn } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { LOAD_CORE, SERVER_CORE, canPin, cpuNoise, onCore, sampleCpu } from '../lib/cpu.js';
import { count, ms } from '../lib/format.js';
import { primaryEnv, profileFlags, startGeoSite } from '../lib/geo.js';
import { RegistryReader, countSetting, peakRssMiB, presetSecondaryCapacity, startFreshSecondary, syncOutcomes, waitForFullStatus, waitUntilSynced } from '../lib/geo-sync.js';
import { gitClient, gitClientEnv } from '../lib/git.js';
import { mapLimit } from '../lib/pool.js';
import { interleave } from '../lib/rounds.js';
import type { Scenario } from '../lib/scenario.js';
import { tempDir } from '../lib/scope.js';
import { seedRepositories, type SeededRepository } from '../lib/seed-repositories.js';
import { freePort, startServer } from '../lib/server.js';
import { median } from '../lib/stats.js';
import { sized } from '../lib/settings.js';

/** BENCHMARKS.md scenario 7: 1,000 small projects with a wiki each, plus 10 medium ones (~2 MiB each). */
const SMALL_REPOS = sized(1_000, 3);
const MEDIUM_PER_SMALL = 0.01;
/** One round of both at full size takes about 4-5 minutes on the reference machine; BENCH_GEO_ROUNDS=3 for three. */
const DEFAULT_ROUNDS = 1;
const GOAL = 0.8;
/** 1,000 small repositories (with their wikis) in at most 2 minutes; scaled with BENCH_GEO_REPOS. */
const GOAL_MS_PER_1000 = 120_000;
/** The baseline's parallelism: `xargs -P4`. */
const MIRROR_PARALLEL = 4;
const VERIFY_PARALLEL = 4;
/** The file:// loop is information only: every 10th repository gives its rate in a tenth of the time. */
const FILE_SAMPLE_EVERY = 10;
const NOISY_PERCENT = 10;
/** A sync with no registry movement this long is broken, not slow. */
const STALL_MS = 60_000;
const STATUS_TIMEOUT_MS = 15_000;

const TARGETS = ['geoforge', 'bridge'] as const;
type Target = (typeof TARGETS)[number];
const LABELS: Record<Target, string> = { geoforge: 'geoforge secondary', bridge: 'xargs -P4 over bridge' };

interface Round {
  /** From the secondary's spawn (or xargs' start) until every repository and wiki is there. */
  readonly wallMs: number;
  /** geoforge only: from the first registry item started to the last synced, by the registry's own clock. */
  readonly syncSpanMs: number | null;
  /** CPU of the serving side (primary or bridge) and of the pulling side (secondary, or xargs and its clones). */
  readonly server: CpuSplit;
  readonly client: CpuSplit;
  /** geoforge only: the secondary's peak RSS, and its finished syncs by outcome. */
  readonly peakRssMiB: number | null;
  readonly syncs: string | null;
  /** Copies whose refs or HEAD differ from the primary's. */
  readonly mismatched: string[];
}

/** BENCHMARKS.md scenario 7: a fresh secondary's initial sync of repositories and wikis against xargs -P4 git clone --mirror over the git http-backend bridge. */
export const geoInitialSync: Scenario = {
  name: 'geo-initial-sync',
  summary: 'a fresh secondary syncs 1,000 small repositories with wikis + 10 medium ones; vs xargs -P4 git clone --mirror over a git http-backend bridge',
  async run(scope) {
    const small = countSetting('BENCH_GEO_REPOS', SMALL_REPOS);
    const medium = Math.max(1, Math.round(small * MEDIUM_PER_SMALL));
    const rounds = countSetting('BENCH_GEO_ROUNDS', DEFAULT_ROUNDS);
    const dir = await tempDir(scope, 'geo-initial-sync');
    const primaryDir = path.join(dir, 'primary');
    // Each round's copies stay until the scenario ends: deleting thousands of files just before a
    // timed round makes ext4 scan the freed inodes at every create (see geo-blob-sync).
    const secondaryDirOf = (round: number) => path.join(dir, `secondary-${round}`);
    const mirrorDirOf = (round: number) => path.join(dir, `mirrors-${round}`);
    const env = await gitClientEnv(dir);

    const primary = await startGeoSite(scope, { name: 'geoforge primary', dataDir: primaryDir, logFile: path.join(dir, 'primary.log'), env: primaryEnv(), nodeFlags: profileFlags() });
    if (profileFlags().length) console.log(`profiling into ${process.env.BENCH_CPU_PROF}: primary pid ${primary.pid}`);
    let started = performance.now();
    const repositories = await seedRepositories(primary.url, primaryDir, { small, medium });
    console.log(`seeded ${count(small)} small projects with wikis and ${count(medium)} medium ones (${count(repositories.length)} repositories) in ${ms(performance.now() - started)}`);
    started = performance.now();
    const expectedRefs = await mapLimit(repositories, VERIFY_PARALLEL, (repository) => refsOf(path.join(primaryDir, repository.relative), env));
    console.log(`read the primary's refs in ${ms(performance.now() - started)}`);

    const projectRoot = path.join(primaryDir, 'repositories');
    const bridgePort = await freePort();
    const bridge = await startServer(scope, {
      name: LABELS.bridge,
      nodeArgs: ['--import', 'tsx', 'bench/baselines/git-http-backend-bridge.ts', projectRoot, String(bridgePort)],
      port: bridgePort,
      readyPath: `/${path.relative(projectRoot, path.join(primaryDir, repositories[0].relative))}/info/refs?service=git-upload-pack`,
      logFile: path.join(dir, 'bridge.log'),
    });
    const bridgeUrl = (repository: SeededRepository) => `${bridge.url}/${path.relative(projectRoot, path.join(primaryDir, repository.relative))}`;

    const verify = (copyOf: (repository: SeededRepository, index: number) => string): Promise<string[]> =>
      mapLimit(repositories, VERIFY_PARALLEL, async (repository, i) => ((await refsOf(copyOf(repository, i), env).catch(String)) === expectedRefs[i] ? null : repository.relative)).then(
        (results) => results.filter((result): result is string => result !== null),
      );

    const measure: Record<Target, (round: number) => Promise<Round>> = {
      geoforge: async (round) => {
        const secondaryDir = secondaryDirOf(round);
        const serverBefore = cpuOf(primary.pid);
        const secondary = await startFreshSecondary(scope, primary.url, secondaryDir, path.join(dir, `secondary-${round}.log`));
        const reader = new RegistryReader(secondaryDir, ['repository', 'wiki']);
        const synced = await (async () => {
          const wallMs = (await waitUntilSynced(reader, repositories.length, STALL_MS, `round ${round} geoforge`)) - secondary.spawnedAt;
          const status = await waitForFullStatus(secondary.server.url, ['repositories', 'wikis'], STATUS_TIMEOUT_MS);
          assertInventoryCounts(status, small + medium, small);
          return {
            wallMs,
            syncSpanMs: registrySpan(reader),
            // Every sync has ended, so every git child of the secondary has been reaped and counts.
            client: cpuOf(secondary.server.pid),
            peakRssMiB: peakRssMiB(secondary.server.pid),
            syncs: await syncOutcomes(secondary.server.url, ['repository', 'wiki']),
          };
        })().finally(async () => {
          reader.close();
          await secondary.scope.close();
        });
        const server = minus(cpuOf(primary.pid), serverBefore);
        const mismatched = await verify((repository) => path.join(secondaryDir, repository.relative));
        return { ...synced, server, mismatched };
      },
      bridge: async (round) => {
        const mirrorDir = mirrorDirOf(round);
        await mkdir(mirrorDir, { recursive: true });
        const serverBefore = cpuOf(bridge.pid);
        const clientBefore = cpuOf(process.pid);
        const wallMs = await mirrorLoop(repositories.map((repository, i) => [bridgeUrl(repository), path.join(mirrorDir, `${i}.git`)]), env);
        const server = minus(cpuOf(bridge.pid), serverBefore);
        // xargs and its clones are this process's reaped children; this process's own polling is left out.
        const client = { node: 0, git: cpuOf(process.pid).git - clientBefore.git };
        const mismatched = await verify((_, i) => path.join(mirrorDir, `${i}.git`));
        return { wallMs, syncSpanMs: null, server, client, peakRssMiB: null, syncs: null, mismatched };
      },
    };

    const capacity = await presetSecondaryCapacity(primary.url);
    const pids = [process.pid, primary.pid, bridge.pid];
    const before = sampleCpu(pids, true);
    const results = await interleave(TARGETS, rounds, async (target, round) => {
      const result = await measure[target](round);
      console.log(`round ${round} ${LABELS[target].padEnd(22)} ${describeRound(result, repositories.length)}`);
      return result;
    });
    const noise = cpuNoise(before, sampleCpu(pids, true));

    const mirrorDir = path.join(dir, 'mirrors-file');
    await mkdir(mirrorDir, { recursive: true });
    const sample = repositories.filter((_, i) => i % FILE_SAMPLE_EVERY === 0);
    const sampleMs = await mirrorLoop(sample.map((repository, i) => [`file://${path.join(primaryDir, repository.relative)}`, path.join(mirrorDir, `${i}.git`)]), env);
    const fileMs = (sampleMs * repositories.length) / sample.length;
    console.log(`file:// loop (information) over ${count(sample.length)} of the repositories: ${ms(sampleMs)}, ${(sample.length / (sampleMs / 1000)).toFixed(1)} repositories/s`);

    return summarize({ results, rounds, small, medium, total: repositories.length, fileMs, capacity, noise });
  },
};

/**
 * The baseline loop: `xargs -P4 -n2 git clone --quiet --mirror <url> <dir>` fed every pair on
 * stdin, run on the load core; resolves with its wall time in ms.
 */
function mirrorLoop(pairs: readonly (readonly [string, string])[], env: Record<string, string>): Promise<number> {
  const { command, args } = onCore(LOAD_CORE, 'xargs', ['-P', String(MIRROR_PARALLEL), '-n', '2', 'git', 'clone', '--quiet', '--mirror']);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'ignore', 'pipe'] });
    const err: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolve(performance.now() - started);
      else reject(new Error(`xargs git clone --mirror failed (${code ?? signal}): ${Buffer.concat(err).toString('utf8').trim().slice(0, 2000)}`));
    });
    child.stdin.end(pairs.map((pair) => pair.join(' ')).join('\n') + '\n');
  });
}

/** What must match between a copy and the primary: every ref with its object, and HEAD. */
async function refsOf(repository: string, env: Record<string, string>): Promise<string> {
  const [refs, head] = await Promise.all([gitClient(['--git-dir', repository, 'for-each-ref', '--format=%(objectname) %(refname)'], env), readFile(path.join(repository, 'HEAD'), 'utf8')]);
  return `${refs.stdout}HEAD ${head.trim()}\n`;
}

/** From the first item the secondary started to the last it synced, in ms (the registry's times). */
function registrySpan(reader: RegistryReader): number {
  const span = reader.db
    .prepare("SELECT min(started_at) AS first, max(last_successful_sync_at) AS last FROM geo_registry WHERE item_type IN ('repository', 'wiki') AND state = 'synced'")
    .get() as { first: number | null; last: number | null };
  return span.first !== null && span.last !== null ? span.last - span.first : Number.NaN;
}

/** The secondary counts what the primary's inventory holds: every seeded repository and wiki, nothing more. */
function assertInventoryCounts(status: Record<string, unknown>, repositories: number, wikis: number): void {
  if (status.repositories_count !== repositories || status.wikis_count !== wikis) {
    throw new Error(`the secondary's status counts ${status.repositories_count} repositories and ${status.wikis_count} wikis, expected ${repositories} and ${wikis}`);
  }
}

/** CPU seconds of a node process itself and of its exited children (the git processes it ran). */
interface CpuSplit {
  readonly node: number;
  readonly git: number;
}

/** /proc reports CPU time in clock ticks, 100 per second on Linux. */
function cpuOf(pid: number): CpuSplit {
  const own = sampleCpu([pid]).ours;
  return { node: own / 100, git: (sampleCpu([pid], true).ours - own) / 100 };
}

const minus = (a: CpuSplit, b: CpuSplit): CpuSplit => ({ node: a.node - b.node, git: a.git - b.git });
const describeCpu = (cpu: CpuSplit): string => (cpu.node ? `${cpu.node.toFixed(1)} s + git ${cpu.git.toFixed(1)} s` : `git ${cpu.git.toFixed(1)} s`);

const seconds = (value: number): string => `${(value / 1000).toFixed(1)} s`;

function describeRound(round: Round, total: number): string {
  const span = round.syncSpanMs === null ? '' : ` (first start to last sync ${seconds(round.syncSpanMs)})`;
  return (
    `${seconds(round.wallMs)}${span}, ${(total / (round.wallMs / 1000)).toFixed(1)} repositories/s, ` +
    `CPU serving ${describeCpu(round.server)}, pulling ${describeCpu(round.client)}${round.peakRssMiB === null ? '' : ` (peak RSS ${round.peakRssMiB.toFixed(0)} MiB)`}, ` +
    `${round.syncs === null ? '' : `syncs: ${round.syncs}, `}${round.mismatched.length ? `${round.mismatched.length} MISMATCHED (${round.mismatched.slice(0, 3).join(', ')})` : 'refs match'}`
  );
}

function summarize(input: {
  results: Record<Target, Round[]>;
  rounds: number;
  small: number;
  medium: number;
  total: number;
  fileMs: number;
  capacity: string;
  noise: ReturnType<typeof cpuNoise>;
}): { ratio: number; details: string } {
  const { results, rounds, small, medium, total, fileMs, capacity, noise } = input;
  const wall = (target: Target) => median(results[target].map((round) => round.wallMs));
  const cpu = (target: Target, side: 'server' | 'client') =>
    describeCpu({ node: median(results[target].map((round) => round[side].node)), git: median(results[target].map((round) => round[side].git)) });
  const roundRatios = results.geoforge.map((round, i) => results.bridge[i].wallMs / round.wallMs);
  const goalMs = (GOAL_MS_PER_1000 * small) / 1000;
  const inGoalTime = results.geoforge.filter((round) => round.wallMs <= goalMs).length;
  const mismatched = TARGETS.map((target) => `${LABELS[target]} ${results[target].reduce((sum, round) => sum + round.mismatched.length, 0)}`);
  const noisy = noise.stealPercent > NOISY_PERCENT || noise.otherPercent > NOISY_PERCENT;
  const details = [
    `geoforge ${seconds(wall('geoforge'))} from spawn to 100.00% synced (rounds ${results.geoforge.map((round) => seconds(round.wallMs)).join('/')}; sync span ${seconds(median(results.geoforge.map((round) => round.syncSpanMs ?? 0)))})`,
    `bridge loop ${seconds(wall('bridge'))} (rounds ${results.bridge.map((round) => seconds(round.wallMs)).join('/')})`,
    `ratio = bridge wall / ours, rounds ${roundRatios.map((ratio) => ratio.toFixed(2)).join('/')}, goal >= ${GOAL} met in ${roundRatios.filter((ratio) => ratio >= GOAL).length}/${rounds}`,
    `all ${count(total)} (${count(small)} small repositories with their wikis, and the medium ones) in <= ${seconds(goalMs)}: ${inGoalTime}/${rounds} rounds`,
    `file:// loop ${seconds(fileMs)} (information, extrapolated from every ${FILE_SAMPLE_EVERY}th repository)`,
    `mismatched refs: ${mismatched.join(', ')}`,
    `median CPU: primary ${cpu('geoforge', 'server')}, secondary ${cpu('geoforge', 'client')} (whole life); bridge ${cpu('bridge', 'server')}, xargs clones ${cpu('bridge', 'client')}`,
    `${count(total)} repositories (${count(small)} small + ${count(small)} wikis + ${count(medium)} medium of ~2 MiB), secondary with ${capacity}`,
    `steal ${noise.stealPercent.toFixed(1)}%`,
    `other processes ${noise.otherPercent.toFixed(1)}% CPU`,
    `noisy ${noisy ? 'yes' : 'no'}`,
    canPin ? `primary and bridge on core ${SERVER_CORE}, secondary and xargs on core ${LOAD_CORE}` : 'unpinned (no taskset or < 2 cores)',
    `x${rounds} round${rounds === 1 ? '' : 's'}, no warm-up (seeding leaves the primary's repositories in the page cache)`,
  ];
  return { ratio: wall('bridge') / wall('geoforge'), details: details.join(', ') };
}
