import { spawn } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool } from 'undici';
import { LOAD_CORE, cpuNoise, onCore, sampleCpu } from '../lib/cpu.js';
import { count, ms } from '../lib/format.js';
import { GEO_SECRET, childScope, primaryEnv, secondaryEnv } from '../lib/geo.js';
import { waitForFullStatus } from '../lib/geo-sync.js';
import { ROOT_TOKEN, SERVER_NODE_FLAGS, SITE_WORKERS_ENV, openSeedSite } from '../lib/geoforge.js';
import { runOpenLoop } from '../lib/open-loop.js';
import { interleave } from '../lib/rounds.js';
import type { Scenario } from '../lib/scenario.js';
import { tempDir, type Scope } from '../lib/scope.js';
import { seedRepositories } from '../lib/seed-repositories.js';
import { seedUsers } from '../lib/seed-users.js';
import { freePort, startServer, type RunningServer } from '../lib/server.js';
import { roundSeconds, sized, WARM_UP } from '../lib/settings.js';
import { median, percentile } from '../lib/stats.js';

const USERS = sized(10_000, 200);
const REPOSITORIES = sized(100, 3);
const RATE = 200;
const ROUNDS = sized(3, 1);
const GOAL_PROMOTION_MS = 10_000;
const GOAL_P99_FACTOR = 3;
const NOISY_PERCENT = 10;
const MODES = ['async', 'sync1'] as const;
type Mode = (typeof MODES)[number];
const KINDS = ['repositories', 'wikis'];

/** A Geo site on a port of our choosing, so a restarted primary keeps the URL its secondary follows. */
function startSite(scope: Scope, name: string, port: number, dataDir: string, logFile: string, env: Record<string, string>, core?: number): Promise<RunningServer> {
  return startServer(scope, { name, nodeArgs: [...SERVER_NODE_FLAGS, 'dist/cli.js', 'serve'], env: siteEnv(port, dataDir, env), port, readyPath: '/-/readiness', logFile, core });
}

function siteEnv(port: number, dataDir: string, env: Record<string, string>): Record<string, string> {
  return {
    GEOFORGE_HOST: '127.0.0.1',
    GEOFORGE_PORT: String(port),
    GEOFORGE_EXTERNAL_URL: `http://127.0.0.1:${port}`,
    GEOFORGE_DATA_DIR: dataDir,
    GEOFORGE_GEO_SECRET: GEO_SECRET,
    GEOFORGE_LOG_LEVEL: 'info',
    // The bench client is on loopback: it measures the site, not its rate limits.
    GEOFORGE_RATE_LIMIT_EXEMPT_LOOPBACK: 'true',
    ...SITE_WORKERS_ENV,
    ...env,
  };
}

/**
 * Issue 18's bench: (1) write latency at 200 writes/s open loop (PUT /users/:id) on a primary with
 * geoSyncReplicas=1 against the same primary restarted with 0, interleaved, one secondary following
 * on the same core; (2) a planned promotion of that secondary, which holds 10,000 users and 100
 * repositories with their wikis: from `geoforge geo promote` to the first write it accepts.
 */
export const failover: Scenario = {
  name: 'failover',
  summary: 'planned promotion with 10,000 rows and 100 repositories (command to first accepted write, goal < 10 s); write latency at 200/s with geoSyncReplicas=1 vs 0 (goal p99 <= 3x)',
  async run(scope) {
    const seconds = roundSeconds();
    const dir = await tempDir(scope, 'failover');
    const primaryDir = path.join(dir, 'primary');
    const secondaryDir = path.join(dir, 'secondary');
    const started = Date.now();
    const seedSite = await openSeedSite(primaryDir);
    const ids = await seedUsers(seedSite.db, USERS).finally(() => seedSite.stop());

    const primaryPort = await freePort();
    const primaryUrl = `http://127.0.0.1:${primaryPort}`;
    let primaryScope = childScope(scope);
    let primary = await startSite(primaryScope, 'geoforge primary', primaryPort, primaryDir, path.join(dir, 'primary-0.log'), primaryEnv());
    await seedRepositories(primaryUrl, primaryDir, { small: REPOSITORIES, medium: 0 });
    console.log(`seeded ${count(USERS)} users and ${REPOSITORIES} repositories with wikis in ${ms(Date.now() - started)}`);

    const secondaryPort = await freePort();
    const secondaryUrl = `http://127.0.0.1:${secondaryPort}`;
    const secondaryOwnEnv = secondaryEnv(primaryUrl, { GEOFORGE_GEO_BACKFILL_SECONDS: '2' });
    const secondary = await startSite(scope, 'geoforge secondary', secondaryPort, secondaryDir, path.join(dir, 'secondary.log'), secondaryOwnEnv);
    const syncStarted = Date.now();
    await waitForFullStatus(secondaryUrl, KINDS, 300_000);
    console.log(`secondary synced ${REPOSITORIES * 2} repositories and wikis in ${ms(Date.now() - syncStarted)}`);

    // (1) Write latency, the primary restarted between modes on the same port and data.
    let restarts = 0;
    const usePrimary = async (mode: Mode) => {
      await primaryScope.close();
      primaryScope = childScope(scope);
      const env = primaryEnv(mode === 'sync1' ? { GEOFORGE_GEO_SYNC_REPLICAS: '1', GEOFORGE_GEO_SYNC_TIMEOUT_MS: '5000' } : {});
      primary = await startSite(primaryScope, `geoforge primary (${mode})`, primaryPort, primaryDir, path.join(dir, `primary-${++restarts}.log`), env);
      // The secondary's long poll reconnects within its backoff: wait until it asks again, so the first writes measure the steady state.
      await sleep(2_500);
    };
    const pool = new Pool(primaryUrl, { connections: 64, headersTimeout: 30_000, bodyTimeout: 30_000 });
    scope.defer(() => pool.close());
    let seq = 1;
    const drive = async (runSeconds: number) => {
      const result = await runOpenLoop({
        rate: RATE,
        seconds: runSeconds,
        sampleEvery: Number.MAX_SAFE_INTEGER,
        maxInFlight: 512,
        firstSeq: seq,
        async write(n) {
          const response = await pool.request({
            method: 'PUT',
            path: `/api/v4/users/${ids[n % ids.length]}`,
            headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' },
            body: JSON.stringify({ bio: `failover ${n}` }),
          });
          const body = await response.body.text();
          if (response.statusCode !== 200) throw new Error(`PUT answered ${response.statusCode}: ${body.slice(0, 200)}`);
          const outcome = response.headers['x-geoforge-sync-replication'];
          if (outcome !== undefined && outcome !== 'applied') throw new Error(`synchronous replication answered ${String(outcome)}`);
          return 1;
        },
        readBack: async () => null,
      });
      seq = result.nextSeq;
      if (result.writeFailures) throw new Error(`${result.writeFailures} of ${result.sent} writes failed`);
      const latencies = result.writeLatencies;
      return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), rate: result.achievedRate, shed: result.shed };
    };
    const pids = () => [process.pid, primary.pid, secondary.pid];
    const before = sampleCpu(pids());
    const rounds = await interleave(MODES, ROUNDS, async (mode, round) => {
      await usePrimary(mode);
      if (WARM_UP) await drive(Math.max(1, Math.round(seconds / 5)));
      const measured = await drive(seconds);
      console.log(`round ${round} ${mode === 'sync1' ? 'geoSyncReplicas=1' : 'geoSyncReplicas=0'}: p50 ${measured.p50.toFixed(2)} ms, p99 ${measured.p99.toFixed(2)} ms, ${count(measured.rate)} writes/s`);
      return measured;
    });
    const noise = cpuNoise(before, sampleCpu(pids()));
    const factors = rounds.sync1.map((sync, index) => sync.p99 / rounds.async[index].p99);
    const p50Factors = rounds.sync1.map((sync, index) => sync.p50 / rounds.async[index].p50);

    // (2) Planned promotion of the caught-up secondary: the primary as in production (asynchronous).
    await usePrimary('async');
    await waitForFullStatus(secondaryUrl, KINDS, 60_000);
    const secondaryClient = new Pool(secondaryUrl, { connections: 4 });
    scope.defer(() => secondaryClient.close());
    const commandAt = performance.now();
    const cli = runCli(siteEnv(secondaryPort, secondaryDir, secondaryOwnEnv), ['geo', 'promote', '--timeout', '60']);
    let firstWriteMs = -1;
    for (let attempt = 0; firstWriteMs < 0; attempt++) {
      const response = await secondaryClient.request({
        method: 'POST',
        path: '/api/v4/users',
        headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' },
        body: JSON.stringify({ username: `promoted${attempt}`, email: `promoted${attempt}@example.com`, name: 'Promoted', reset_password: true }),
      });
      await response.body.dump();
      // A secondary forwards writes to the primary: only an answer by the secondary itself counts.
      if (response.statusCode === 201 && response.headers['x-geoforge-node'] !== 'bench-primary') firstWriteMs = performance.now() - commandAt;
      else if (performance.now() - commandAt > 60_000) throw new Error('the promoted secondary took no write within 60 s');
      else await sleep(5);
    }
    const cliResult = await cli;
    if (cliResult.code !== 0) throw new Error(`geo promote exited ${cliResult.code}: ${cliResult.output.slice(-2000)}`);
    console.log(`planned promotion: command to first accepted write ${ms(firstWriteMs)}; command exited after ${ms(cliResult.ms)}`);

    const p99Factor = median(factors);
    const ratio = Math.min(GOAL_PROMOTION_MS / firstWriteMs, GOAL_P99_FACTOR / p99Factor);
    const noisy = noise.stealPercent > NOISY_PERCENT ? `, noisy (steal ${noise.stealPercent.toFixed(1)} %)` : '';
    return {
      ratio,
      details:
        `promotion ${ms(firstWriteMs)} (goal < 10 s); geoSyncReplicas=1 p99 ${median(rounds.sync1.map((r) => r.p99)).toFixed(2)} ms vs 0 ${median(rounds.async.map((r) => r.p99)).toFixed(2)} ms = ${p99Factor.toFixed(2)}x (goal <= 3x), ` +
        `p50 ${median(rounds.sync1.map((r) => r.p50)).toFixed(2)} vs ${median(rounds.async.map((r) => r.p50)).toFixed(2)} ms = ${median(p50Factors).toFixed(2)}x, p99 factor per round ${factors.map((f) => f.toFixed(2)).join('/')}${noisy}; ratio = min(10 s / promotion, 3 / p99 factor)`,
    };
  },
};

/** `node dist/cli.js <args>` on the load core with a site's environment. */
function runCli(env: Record<string, string>, args: string[]): Promise<{ code: number | null; output: string; ms: number }> {
  const started = performance.now();
  const { command, args: full } = onCore(LOAD_CORE, process.execPath, ['dist/cli.js', ...args]);
  const clean = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('GEOFORGE_')));
  return new Promise((resolve, reject) => {
    const child = spawn(command, full, { env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output, ms: performance.now() - started }));
  });
}
