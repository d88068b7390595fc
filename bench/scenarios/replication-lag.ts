import Database from 'better-sqlite3';
import path from 'node:path';
import { Pool } from 'undici';
import { LOAD_CORE, SERVER_CORE, canPin, cpuNoise, sampleCpu, type CpuNoise } from '../lib/cpu.js';
import { count, ms } from '../lib/format.js';
import { ROOT_TOKEN, openSeedSite } from '../lib/geoforge.js';
import { SECONDARY_NODE, lastEventIdOf, primaryEnv, secondaryEnv, profileFlags, siteDb, startGeoSite } from '../lib/geo.js';
import { runOpenLoop, type OpenLoopResult, type OpenLoopSpec } from '../lib/open-loop.js';
import { interleave } from '../lib/rounds.js';
import type { Outcome, Scenario } from '../lib/scenario.js';
import { tempDir } from '../lib/scope.js';
import { seedUsers } from '../lib/seed-users.js';
import { freePort, startServer } from '../lib/server.js';
import { roundSeconds, sized, WARM_UP } from '../lib/settings.js';
import { median, percentile } from '../lib/stats.js';

const USERS = sized(2_000, 100);
const RATES = [200, 2_000] as const;
type Rate = (typeof RATES)[number];
/** Read back every write at 200/s, one in ten at 2,000/s. */
const SAMPLE_EVERY: Record<Rate, number> = { 200: 1, 2000: 10 };
const MAX_IN_FLIGHT = 512;
const CONNECTIONS = 64;
const ROUNDS = sized(3, 1);
const GOAL_P50_MS = 20;
const P99_FLOOR_MS = 100;
const P99_BASELINE_FACTOR = 5;
const NOISY_PERCENT = 10;

const TARGETS = ['geoforge', 'pipeline'] as const;
type Target = (typeof TARGETS)[number];
const LABELS: Record<Target, string> = { geoforge: 'geoforge', pipeline: 'minimal pipeline' };
type Run = `${Target}@${Rate}`;
const RUNS: readonly Run[] = RATES.flatMap((rate) => TARGETS.map((target): Run => `${target}@${rate}`));

interface Lag {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
}

interface Measured extends Lag {
  readonly result: OpenLoopResult;
  /** CPU time of the target's two processes per successful write, in ms: its primary and its replica. */
  readonly primaryCpuPerWrite: number;
  readonly replicaCpuPerWrite: number;
  /** Their CPU time over the run's wall time, in percent of one core (they share core 0). */
  readonly corePercent: number;
}

/** A write path and a read-back path, as the open loop drives them. */
type Pair = Pick<OpenLoopSpec, 'write' | 'readBack'>;

/**
 * BENCHMARKS.md scenario 5: open-loop PUT /api/v4/users/:id (a new bio) on the primary at 200/s and
 * 2,000/s; lag = from the write's response (X-Geoforge-Event-Id) to the answer of a GET on the
 * secondary carrying X-Geoforge-Min-Event-Id, which must show the written bio.
 */
export const replicationLag: Scenario = {
  name: 'replication-lag',
  summary: 'write-to-readable-on-secondary lag under open-loop PUT /users/:id at 200/s and 2,000/s; vs the minimal long-poll pipeline',
  async run(scope) {
    const seconds = roundSeconds();
    const dir = await tempDir(scope, 'replication-lag');
    const primaryDir = path.join(dir, 'primary');
    const pipelinePrimaryFile = path.join(dir, 'pipeline-primary.sqlite');
    const pipelineReplicaFile = path.join(dir, 'pipeline-replica.sqlite');

    const started = Date.now();
    const site = await openSeedSite(primaryDir);
    const ids = await seedUsers(site.db, USERS).finally(() => site.stop());
    // The pipeline's primary and replica start from the same data: copies of the seeded file.
    const pipelineStart = copySqlite(siteDb(primaryDir), [pipelinePrimaryFile, pipelineReplicaFile]);
    console.log(`seeded ${count(ids.length)} users in ${ms(Date.now() - started)}`);

    const primary = await startGeoSite(scope, { name: 'geoforge primary', dataDir: primaryDir, logFile: path.join(dir, 'primary.log'), env: primaryEnv(), nodeFlags: profileFlags() });
    const secondary = await startGeoSite(scope, {
      name: 'geoforge secondary',
      dataDir: path.join(dir, 'secondary'),
      logFile: path.join(dir, 'secondary.log'),
      env: secondaryEnv(primary.url),
      nodeFlags: profileFlags(),
    });
    if (profileFlags().length) console.log(`profiling into ${process.env.BENCH_CPU_PROF}: primary pid ${primary.pid}, secondary pid ${secondary.pid}`);
    const pipelinePort = await freePort();
    const pipelinePrimary = await startServer(scope, {
      name: 'pipeline primary',
      nodeArgs: ['--import', 'tsx', 'bench/baselines/event-pipeline-primary.ts', pipelinePrimaryFile, String(pipelinePort), '--writable'],
      port: pipelinePort,
      readyPath: '/health',
      logFile: path.join(dir, 'pipeline-primary.log'),
    });
    const consumerPort = await freePort();
    const consumer = await startServer(scope, {
      name: 'pipeline consumer',
      nodeArgs: ['--import', 'tsx', 'bench/baselines/event-pipeline-consumer.ts', pipelineReplicaFile, pipelinePrimary.url, String(consumerPort), String(pipelineStart)],
      port: consumerPort,
      readyPath: '/cursor',
      logFile: path.join(dir, 'pipeline-consumer.log'),
    });

    const pool = (url: string) => {
      const created = new Pool(url, { connections: CONNECTIONS, headersTimeout: 30_000, bodyTimeout: 30_000 });
      scope.defer(() => created.close());
      return created;
    };
    const pairs: Record<Target, Pair> = {
      geoforge: geoforgePair(pool(primary.url), pool(secondary.url), ids),
      pipeline: pipelinePair(pool(pipelinePrimary.url), pool(consumer.url), ids),
    };

    const processes: Record<Target, [number, number]> = { geoforge: [primary.pid, secondary.pid], pipeline: [pipelinePrimary.pid, consumer.pid] };
    let seq = 1;
    const drive = async (target: Target, rate: Rate, runSeconds: number): Promise<Measured> => {
      const cpu = () => processes[target].map((pid) => sampleCpu([pid]).ours);
      const cpuBefore = cpu();
      const startedAt = performance.now();
      const result = await runOpenLoop({ ...pairs[target], rate, seconds: runSeconds, sampleEvery: SAMPLE_EVERY[rate], maxInFlight: MAX_IN_FLIGHT, firstSeq: seq });
      const wallMs = performance.now() - startedAt;
      // /proc counts CPU time in 10 ms ticks.
      const [primaryMs, replicaMs] = cpu().map((jiffies, i) => (jiffies - cpuBefore[i]) * 10);
      const writes = Math.max(1, result.sent - result.writeFailures);
      seq = result.nextSeq;
      return {
        result,
        ...lagOf(result.lags),
        primaryCpuPerWrite: primaryMs / writes,
        replicaCpuPerWrite: replicaMs / writes,
        corePercent: (100 * (primaryMs + replicaMs)) / wallMs,
      };
    };

    const pids = [process.pid, primary.pid, secondary.pid, pipelinePrimary.pid, consumer.pid];
    const before = sampleCpu(pids);
    const warmup = Math.max(1, Math.round(seconds / 5));
    if (WARM_UP) for (const rate of RATES) for (const target of TARGETS) await drive(target, rate, warmup);
    const rounds = await interleave(RUNS, ROUNDS, async (run, round) => {
      const [target, rate] = parseRun(run);
      const measured = await drive(target, rate, seconds);
      console.log(`round ${round} ${`${LABELS[target]} @${count(rate)}/s`.padEnd(24)} ${describe(measured)}`);
      return measured;
    });
    return summarize(rounds, cpuNoise(before, sampleCpu(pids)), seconds);
  },
};

function geoforgePair(primary: Pool, secondary: Pool, ids: readonly number[]): Pair {
  return {
    async write(seq) {
      const response = await primary.request({
        method: 'PUT',
        path: `/api/v4/users/${ids[seq % ids.length]}`,
        headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' },
        body: JSON.stringify({ bio: `lag ${seq}` }),
      });
      const body = await response.body.text();
      if (response.statusCode !== 200) throw new Error(`PUT answered ${response.statusCode}: ${body.slice(0, 200)}`);
      const position = Number(response.headers['x-geoforge-event-id']);
      if (!Number.isInteger(position) || position <= 0) throw new Error(`PUT answered without X-Geoforge-Event-Id (${response.headers['x-geoforge-event-id']})`);
      return position;
    },
    async readBack(seq, position) {
      const response = await secondary.request({
        method: 'GET',
        path: `/api/v4/users/${ids[seq % ids.length]}`,
        headers: { 'private-token': ROOT_TOKEN, 'x-geoforge-min-event-id': String(position) },
      });
      const body = await response.body.text();
      if (response.statusCode !== 200) return `GET answered ${response.statusCode}`;
      // Past GEOFORGE_GEO_READ_YOUR_WRITES_MS the secondary proxies the read to the primary, which then names itself.
      if (response.headers['x-geoforge-node'] !== SECONDARY_NODE) return `answered by ${response.headers['x-geoforge-node']} (the secondary did not catch up in time)`;
      return staleness(seq, (JSON.parse(body) as { bio?: string }).bio);
    },
  };
}

function pipelinePair(primary: Pool, consumer: Pool, ids: readonly number[]): Pair {
  return {
    async write(seq) {
      const response = await primary.request({
        method: 'PUT',
        path: `/users/${ids[seq % ids.length]}`,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ bio: `lag ${seq}` }),
      });
      const body = await response.body.text();
      if (response.statusCode !== 200) throw new Error(`PUT answered ${response.statusCode}: ${body.slice(0, 200)}`);
      return Number(response.headers['x-event-id']);
    },
    async readBack(seq, position) {
      const response = await consumer.request({ method: 'GET', path: `/users/${ids[seq % ids.length]}`, headers: { 'x-min-event-id': String(position) } });
      const body = await response.body.text();
      if (response.statusCode !== 200) return `GET answered ${response.statusCode}`;
      return staleness(seq, (JSON.parse(body) as { bio?: string }).bio);
    },
  };
}

/** Null when the bio is write `seq`'s or a later write's to the same user; users are written round-robin, so a later one may land first. */
function staleness(seq: number, bio: string | undefined): string | null {
  const seen = /^lag (\d+)$/.exec(bio ?? '');
  return seen && Number(seen[1]) >= seq ? null : 'stale or missing bio';
}

/** Consistent copies of a SQLite file (VACUUM INTO); returns the newest event id they hold. */
function copySqlite(from: string, to: readonly string[]): number {
  const db = new Database(from, { readonly: true, fileMustExist: true });
  try {
    for (const file of to) db.prepare('VACUUM INTO ?').run(file);
    return lastEventIdOf(db);
  } finally {
    db.close();
  }
}

const parseRun = (run: Run): [Target, Rate] => {
  const [target, rate] = run.split('@');
  return [target as Target, Number(rate) as Rate];
};

const lagOf = (lags: readonly number[]): Lag =>
  lags.length ? { p50: percentile(lags, 50), p90: percentile(lags, 90), p99: percentile(lags, 99) } : { p50: Infinity, p90: Infinity, p99: Infinity };

/** Lags are sub-millisecond to seconds: one decimal below 10 ms. */
const lagMs = (value: number): string => (!Number.isFinite(value) ? 'n/a' : value < 10 ? `${value.toFixed(1)}` : `${Math.round(value)}`);
const triple = (lag: Lag): string => `${lagMs(lag.p50)}/${lagMs(lag.p90)}/${lagMs(lag.p99)} ms`;

const failuresOf = (result: OpenLoopResult): number => Object.values(result.readFailures).reduce((sum, n) => sum + n, 0);

function describe({ result, primaryCpuPerWrite, replicaCpuPerWrite, corePercent, ...lag }: Measured): string {
  const failures = Object.entries(result.readFailures).map(([problem, n]) => `${n} ${problem}`);
  return [
    `lag p50/p90/p99 ${triple(lag)} (${count(result.lags.length)} read-backs)`,
    `writes ${count(result.achievedRate)}/s p50 ${lagMs(percentile(result.writeLatencies.length ? result.writeLatencies : [Infinity], 50))} ms`,
    ...(result.shed ? [`${count(result.shed)} shed`] : []),
    ...(result.writeFailures ? [`${count(result.writeFailures)} writes failed`] : []),
    ...(failures.length ? [`read-back failures: ${failures.join(', ')}`] : []),
    `CPU/write ${primaryCpuPerWrite.toFixed(2)} + ${replicaCpuPerWrite.toFixed(2)} ms (primary + replica; together ${Math.round(corePercent)}% of a core)`,
  ].join(', ');
}

function summarize(rounds: Record<Run, Measured[]>, noise: CpuNoise, seconds: number): Outcome {
  const med = (run: Run): Lag => ({
    p50: median(rounds[run].map((m) => m.p50)),
    p90: median(rounds[run].map((m) => m.p90)),
    p99: median(rounds[run].map((m) => m.p99)),
  });
  const bound = (pipelineP99: number) => Math.max(P99_FLOOR_MS, P99_BASELINE_FACTOR * pipelineP99);
  // Per round: both rates must meet p50 and the p99 bound; the ratio is the worse rate's bound / p99.
  const roundRatios = rounds['geoforge@200'].map((_, i) => Math.min(...RATES.map((rate) => bound(rounds[`pipeline@${rate}`][i].p99) / rounds[`geoforge@${rate}`][i].p99)));
  const roundMet = rounds['geoforge@200'].map((_, i) =>
    RATES.every((rate) => rounds[`geoforge@${rate}`][i].p50 <= GOAL_P50_MS && rounds[`geoforge@${rate}`][i].p99 <= bound(rounds[`pipeline@${rate}`][i].p99)),
  );
  const ratio = Math.min(...RATES.map((rate) => bound(med(`pipeline@${rate}`).p99) / med(`geoforge@${rate}`).p99));
  const rateOf = (run: Run) => count(median(rounds[run].map((m) => m.result.achievedRate)));
  const total = (run: Run, pick: (result: OpenLoopResult) => number) => rounds[run].reduce((sum, m) => sum + pick(m.result), 0);
  const cpuOf = (run: Run) =>
    `${median(rounds[run].map((m) => m.primaryCpuPerWrite)).toFixed(2)}+${median(rounds[run].map((m) => m.replicaCpuPerWrite)).toFixed(2)}`;
  const noisy = noise.stealPercent > NOISY_PERCENT || noise.otherPercent > NOISY_PERCENT;
  const details = [
    ...RATES.map((rate) => `geoforge @${count(rate)}/s p50/p90/p99 ${triple(med(`geoforge@${rate}`))}`),
    ...RATES.map((rate) => `pipeline @${count(rate)}/s ${triple(med(`pipeline@${rate}`))}`),
    `p99 bound max(${P99_FLOOR_MS}, ${P99_BASELINE_FACTOR}x pipeline p99) ${RATES.map((rate) => `${lagMs(bound(med(`pipeline@${rate}`).p99))} ms @${count(rate)}`).join(', ')}`,
    `rounds ${roundRatios.map((r) => (Number.isFinite(r) ? r.toFixed(2) : 'n/a')).join('/')}`,
    `goal p50 <= ${GOAL_P50_MS} ms and p99 <= bound at both rates met in ${roundMet.filter(Boolean).length}/${ROUNDS} rounds`,
    `achieved writes/s ${RATES.map((rate) => `geoforge ${rateOf(`geoforge@${rate}`)} pipeline ${rateOf(`pipeline@${rate}`)} @${count(rate)}`).join(', ')}`,
    `shed ${RATES.map((rate) => `${count(total(`geoforge@${rate}`, (r) => r.shed))}/${count(total(`pipeline@${rate}`, (r) => r.shed))} @${count(rate)}`).join(', ')} (geoforge/pipeline, in-flight cap ${MAX_IN_FLIGHT})`,
    `failed writes ${RATES.map((rate) => `${total(`geoforge@${rate}`, (r) => r.writeFailures)}/${total(`pipeline@${rate}`, (r) => r.writeFailures)}`).join(', ')}`,
    `CPU per write primary+replica ${RATES.map((rate) => `geoforge ${cpuOf(`geoforge@${rate}`)} pipeline ${cpuOf(`pipeline@${rate}`)} ms @${count(rate)}`).join(', ')}`,
    `failed read-backs ${RATES.map((rate) => `${total(`geoforge@${rate}`, failuresOf)}/${total(`pipeline@${rate}`, failuresOf)}`).join(', ')} (wrong bio, error, or answered by the primary)`,
    `read back every write @200/s, 1 in ${SAMPLE_EVERY[2000]} @2,000/s`,
    `steal ${noise.stealPercent.toFixed(1)}%`,
    `other processes ${noise.otherPercent.toFixed(1)}% CPU`,
    `noisy ${noisy ? 'yes (p99 not judged)' : 'no'}`,
    canPin ? `geoforge primary+secondary and pipeline primary+consumer all on core ${SERVER_CORE}, load on core ${LOAD_CORE}` : 'unpinned (no taskset or < 2 cores)',
    `${seconds}s x${ROUNDS} rounds per rate, request logs on (to files)`,
  ];
  return { ratio, details: details.join(', ') };
}
