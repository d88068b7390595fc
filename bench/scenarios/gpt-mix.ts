import { applicationSettings } from '../../src/services/administration/application-settings.js';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { Pool } from 'undici';
import { findUserById } from '../../src/db/tables/users.js';
import { createGroup } from '../../src/services/groups/groups.js';
import { createProject } from '../../src/services/projects/create.js';
import { repositoryPath } from '../../src/storage/layout.js';
import { LOAD_CORE, SERVER_CORE, canPin, cpuNoise, sampleCpu } from '../lib/cpu.js';
import { count, ms } from '../lib/format.js';
import { childScope, profileFlags, siteDb } from '../lib/geo.js';
import { openSeedSite, ROOT_TOKEN, startGeoforge } from '../lib/geoforge.js';
import type { Outcome, Scenario } from '../lib/scenario.js';
import { tempDir } from '../lib/scope.js';
import { growIssues, seedIssueProject } from '../lib/seed-issues.js';
import { growMergeRequests, seedMergeRequestProject } from '../lib/seed-merge-requests.js';
import { growProjects, userNamespaces } from '../lib/seed-projects.js';
import { seedUsers } from '../lib/seed-users.js';
import { roundSeconds, sized, SMOKE } from '../lib/settings.js';
import { percentile } from '../lib/stats.js';

const run = promisify(execFile);

/** GitLab's 10k reference data, scaled to what one SQLite site holds: thousands of projects, 100k issues, 10k merge requests. */
const USERS = sized(1_000, 20);
const PROJECTS = sized(5_000, 50);
const ISSUES = sized(100_000, 500);
const MERGE_REQUESTS = sized(10_000, 50);
/** The files of the merge request whose changes are read (GPT's `changes` test reads a large-ish one). */
const MR_FILES = 20;
/** GPT's thresholds: achieved >= 80 % of the target rate, >= 99 % success, p90 < 200 ms. */
const RATE_SHARE = 0.8;
const SUCCESS = 0.99;
const P90_LIMIT_MS = 200;
/** Requests in flight at most; one due past it is counted as failed (the open loop never waits). */
const MAX_IN_FLIGHT = 1024;

/** BENCH_GPT_RATES (comma-separated requests/s, default 20,60,200); each level runs BENCH_GPT_SECONDS (default 60 x BENCH_SECONDS/10). */
function levels(env = process.env): { rates: number[]; seconds: number } {
  const rates = (env.BENCH_GPT_RATES ?? (SMOKE ? '20' : '20,60,200')).split(',').map(Number);
  if (!rates.length || rates.some((rate) => !Number.isFinite(rate) || rate <= 0)) throw new Error(`BENCH_GPT_RATES: expected rates like 20,60,200, got "${env.BENCH_GPT_RATES}"`);
  const seconds = env.BENCH_GPT_SECONDS ? Number(env.BENCH_GPT_SECONDS) : SMOKE ? 2 : Math.max(1, Math.round((60 * roundSeconds(env)) / 10));
  if (!Number.isFinite(seconds) || seconds < 1) throw new Error(`BENCH_GPT_SECONDS: expected seconds >= 1, got "${env.BENCH_GPT_SECONDS}"`);
  return { rates, seconds };
}

/** How a request ended: 2xx, refused by the site's admission control (429 queue full, 503 queue timeout), or anything else. */
type Answer = 'ok' | 429 | 503 | 'failed';

/** What a status means here: a refusal is the site shedding load as designed, not a wrong answer. */
const answerOf = (status: number): Answer => (status >= 200 && status < 300 ? 'ok' : status === 429 || status === 503 ? status : 'failed');

interface Endpoint {
  readonly name: string;
  /** Share of the mix, relative to the others. */
  readonly weight: number;
  /** One request (or, for a pull, the requests of one fetch); resolves to how it ended. */
  call(n: number): Promise<Answer>;
}

interface LevelResult {
  readonly rate: number;
  readonly sent: number;
  /** Due but never started: MAX_IN_FLIGHT requests were already waiting for answers. */
  readonly skipped: number;
  readonly ok: number;
  readonly achieved: number;
  readonly success: number;
  readonly p90: number;
  readonly p50: number;
  /** Refused requests by status, and the latency of every refusal (start to last byte). */
  readonly refused: { readonly 429: number; readonly 503: number; readonly latencies: number[] };
  readonly byEndpoint: Map<string, { latencies: number[]; failed: number; refused: number }>;
}

/** Starts requests on schedule at `rate`/s for `seconds`, never waiting for answers (open loop); latency is start to last byte. */
async function openLoop(endpoints: readonly Endpoint[], rate: number, seconds: number): Promise<LevelResult> {
  const total = endpoints.reduce((sum, endpoint) => sum + endpoint.weight, 0);
  const byEndpoint = new Map(endpoints.map((endpoint) => [endpoint.name, { latencies: [] as number[], failed: 0, refused: 0 }]));
  const latencies: number[] = [];
  const refused = { 429: 0, 503: 0, latencies: [] as number[] };
  let sent = 0;
  let skipped = 0;
  let ok = 0;
  let inFlight = 0;
  const pending = new Set<Promise<void>>();
  // Deterministic spread: request n goes to the endpoint whose cumulative weight covers (n * golden ratio) mod 1.
  const pick = (n: number) => {
    let point = ((n * 0.6180339887) % 1) * total;
    for (const endpoint of endpoints) {
      if ((point -= endpoint.weight) < 0) return endpoint;
    }
    return endpoints[endpoints.length - 1]!;
  };
  const one = async (n: number) => {
    const endpoint = pick(n);
    const stats = byEndpoint.get(endpoint.name)!;
    const started = performance.now();
    let answer: Answer = 'failed';
    try {
      answer = await endpoint.call(n);
    } catch {
      answer = 'failed';
    }
    const elapsed = performance.now() - started;
    if (answer === 'ok') {
      ok++;
      latencies.push(elapsed);
      stats.latencies.push(elapsed);
    } else if (answer === 'failed') stats.failed++;
    else {
      refused[answer]++;
      refused.latencies.push(elapsed);
      stats.refused++;
    }
  };
  const start = performance.now();
  const end = start + seconds * 1000;
  let due = 0;
  for (let now = start; now < end; now = performance.now()) {
    const dueNow = Math.floor(((now - start) * rate) / 1000);
    for (; due < dueNow; due++) {
      sent++;
      if (inFlight >= MAX_IN_FLIGHT) {
        skipped++;
        continue;
      }
      inFlight++;
      const task: Promise<void> = one(due).finally(() => {
        inFlight--;
        pending.delete(task);
      });
      pending.add(task);
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - start) / 1000;
  return {
    rate,
    sent,
    skipped,
    ok,
    achieved: ok / elapsed,
    success: sent ? ok / sent : 0,
    p90: latencies.length ? percentile(latencies, 90) : Infinity,
    p50: latencies.length ? percentile(latencies, 50) : Infinity,
    refused,
    byEndpoint,
  };
}

/**
 * The grown merge requests come from branches that do not exist: left `unchecked`, the site's
 * mergeability worker would check all 10,000 in the background during the measurement (a git
 * spawn or more each, 40 % of the site's CPU in a profile), which a settled 10k instance does not
 * do. They are stored as that check stores them: `cannot_be_merged` against master's head.
 */
async function settleMergeRequests(file: string, dataDir: string, projectId: number, keepIid: number): Promise<void> {
  const master = (await run('git', ['--git-dir', repositoryPath(dataDir, projectId), 'rev-parse', 'refs/heads/master'])).stdout.trim();
  const db = new Database(file, { fileMustExist: true });
  try {
    db.prepare(
      "UPDATE merge_requests SET merge_status = 'cannot_be_merged', merge_status_source_sha = NULL, merge_status_target_sha = ? WHERE target_project_id = ? AND iid != ? AND state = 'opened' AND merge_status = 'unchecked'",
    ).run(master, projectId, keepIid);
  } finally {
    db.close();
  }
}

/** The refusals of one level: 429 and 503 counts, their share of what was sent, and how fast they came. */
function refusedLine(level: LevelResult): string {
  const { latencies } = level.refused;
  const total = level.refused[429] + level.refused[503];
  const share = level.sent ? ((total / level.sent) * 100).toFixed(2) : '0.00';
  const timing = latencies.length ? `p90 ${percentile(latencies, 90).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms` : 'none';
  return `refused: 429 ${level.refused[429]}, 503 ${level.refused[503]} (${share} % of sent), ${timing}; not sent (${MAX_IN_FLIGHT} in flight): ${level.skipped}`;
}

/** The pushes of one level, each timed from its turn: how many finished and how long the slowest took, how many were refused and how fast. */
function pushLine(times: readonly { answer: Answer; ms: number }[]): string {
  const summary = (answers: readonly Answer[]) => {
    const ms = times.filter((time) => answers.includes(time.answer)).map((time) => time.ms);
    return ms.length ? `${ms.length} (p90 ${percentile(ms, 90).toFixed(0)} ms, max ${Math.max(...ms).toFixed(0)} ms)` : '0';
  };
  return `git push: ok ${summary(['ok'])}, refused ${summary([429, 503])}, failed ${summary(['failed'])}`;
}

const passes = (level: LevelResult) => level.achieved >= RATE_SHARE * level.rate && level.success >= SUCCESS && level.p90 < P90_LIMIT_MS;

/**
 * The `gpt-mix` scenario (issue 20, item 7): the GitLab Performance Tool's API endpoints that
 * geoforge has, plus git pulls (info/refs and an upload-pack fetch) and pushes (git push of a new
 * commit), as one mix in an open loop at 20, 60 and 200 requests/s against data seeded at GitLab's
 * 10k level, as an admin's token (GPT's default). Pass per level is GPT's own: >= 80 % of the rate
 * achieved, >= 99 % success, p90 < 200 ms. The ratio is 200 ms over the p90 at the highest rate.
 */
export const gptMix: Scenario = {
  name: 'gpt-mix',
  summary: `GPT's endpoint mix plus git pull and push, open loop at 20/60/200 req/s, ${count(PROJECTS)} projects, ${count(ISSUES)} issues, ${count(MERGE_REQUESTS)} merge requests`,
  async run(scope) {
    const { rates, seconds } = levels();
    const dir = await tempDir(scope, 'gpt-mix');
    const dataDir = path.join(dir, 'data');
    const file = siteDb(dataDir);

    let started = Date.now();
    const site = await openSeedSite(dataDir);
    const seeded = await (async () => {
      const mr = await seedMergeRequestProject(site, MR_FILES);
      const issues = await seedIssueProject(site);
      const root = findUserById(site.db, 1)!;
      const rootActor = { user: root, via: 'personal_access_token' as const, scopes: ['api'], sudoFrom: null };
      const group = createGroup(site.db, rootActor, { name: 'GPT', path: 'gpt', visibility: 'public' }, applicationSettings(site.db, site.ctx.config));
      for (let n = 0; n < 20; n++) {
        await createProject(site.ctx, { actor: rootActor, creatorId: root.id, namespace: group }, { name: `gpt-${n}`, visibility: 'public' });
      }
      const userIds = await seedUsers(site.db, USERS);
      return { mr, issues, groupId: group.id, userIds };
    })().finally(() => site.stop());
    growProjects(file, { namespaces: userNamespaces(file, seeded.userIds), seeded: 0 }, PROJECTS);
    growIssues(file, seeded.issues, 0, ISSUES);
    growMergeRequests(file, seeded.mr, MERGE_REQUESTS);
    await settleMergeRequests(file, dataDir, seeded.mr.projectId, seeded.mr.bigIid);
    const seedMs = Date.now() - started;
    console.log(`seeded ${count(USERS)} users, ${count(PROJECTS)} projects, ${count(ISSUES)} issues, ${count(MERGE_REQUESTS)} merge requests in ${ms(seedMs)}`);

    const servers = childScope(scope);
    // BENCH_CPU_PROF=<dir>: the site runs with --cpu-prof and leaves its profile there.
    const server = await startGeoforge(servers, dataDir, path.join(dir, 'geoforge.log'), profileFlags());
    // A connection per request in flight, as many clients would have: fewer would queue requests in
    // the load generator, where the site can neither see nor refuse them.
    const pool = new Pool(server.url, { connections: MAX_IN_FLIGHT, pipelining: 1 });
    scope.defer(() => pool.close());
    const headers = { 'private-token': ROOT_TOKEN };
    const get = async (url: string): Promise<Answer> => {
      const response = await pool.request({ path: url, method: 'GET', headers, headersTimeout: 30_000, bodyTimeout: 30_000 });
      await response.body.dump({ limit: Infinity });
      return answerOf(response.statusCode);
    };
    const mrProject = await (await fetch(`${server.url}/api/v4/projects/${seeded.mr.projectId}`, { headers })).json() as { path_with_namespace: string };
    const repoPath = `/${mrProject.path_with_namespace}.git`;
    const authorization = `Basic ${Buffer.from(`root:${ROOT_TOKEN}`).toString('base64')}`;

    // A pull: the ref advertisement, then an upload-pack fetch of master's commit (protocol v0, no capabilities).
    const pull = async (): Promise<Answer> => {
      const refs = await pool.request({ path: `${repoPath}/info/refs?service=git-upload-pack`, method: 'GET', headers: { authorization } });
      const text = await refs.body.text();
      const head = /([0-9a-f]{40}) refs\/heads\/master/.exec(text)?.[1];
      if (refs.statusCode !== 200 || !head) return refs.statusCode === 200 ? 'failed' : answerOf(refs.statusCode);
      const want = `want ${head}\n`;
      const body = `${(want.length + 4).toString(16).padStart(4, '0')}${want}00000009done\n`;
      const pack = await pool.request({
        path: `${repoPath}/git-upload-pack`,
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-git-upload-pack-request', accept: 'application/x-git-upload-pack-result' },
        body,
      });
      await pack.body.dump({ limit: Infinity });
      return answerOf(pack.statusCode);
    };

    // A push: a new empty commit on its own branch, from one clone, one push at a time.
    const work = path.join(dir, 'work');
    const remote = `${server.url.replace('://', `://root:${ROOT_TOKEN}@`)}${repoPath}`;
    const git = (args: string[]) => run('git', args, { cwd: work, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
    await run('git', ['clone', '--quiet', remote, work]);
    await git(['config', 'user.email', 'bench@example.com']);
    await git(['config', 'user.name', 'Bench']);
    // The issue's push goal (finished within 2 s, or refused at once) is about a push's own time:
    // pushes run one at a time, so each is timed from its turn, not from when it was due.
    let pushes: Promise<Answer> = Promise.resolve('ok');
    let pushTimes: { answer: Answer; ms: number }[] = [];
    const push = (n: number): Promise<Answer> => {
      const next = pushes.then(async (): Promise<Answer> => {
        await git(['commit', '--quiet', '--allow-empty', '-m', `push ${n}`]);
        const started = performance.now();
        let answer: Answer;
        try {
          await git(['push', '--quiet', 'origin', `HEAD:refs/heads/gpt-${n}`]);
          answer = 'ok';
        } catch (error) {
          // git names the status it was refused with: "The requested URL returned error: 429".
          const status = /returned error: (\d{3})/.exec(String((error as { stderr?: unknown }).stderr ?? ''))?.[1];
          answer = status ? answerOf(Number(status)) : 'failed';
        }
        pushTimes.push({ answer, ms: performance.now() - started });
        return answer;
      });
      pushes = next.catch(() => 'failed');
      return next;
    };

    const p = seeded.mr.projectId;
    const i = seeded.issues.projectId;
    const candidates: Endpoint[] = [
      { name: 'project', weight: 1, call: () => get(`/api/v4/projects/${p}`) },
      { name: 'projects list', weight: 1, call: () => get('/api/v4/projects?per_page=20') },
      { name: 'group projects', weight: 1, call: () => get(`/api/v4/groups/${seeded.groupId}/projects?per_page=20`) },
      { name: 'merge requests', weight: 1, call: () => get(`/api/v4/projects/${p}/merge_requests?per_page=20`) },
      { name: 'merge request', weight: 1, call: (n) => get(`/api/v4/projects/${p}/merge_requests/${1 + (n % MERGE_REQUESTS)}`) },
      { name: 'changes', weight: 1, call: () => get(`/api/v4/projects/${p}/merge_requests/${seeded.mr.bigIid}/changes`) },
      { name: 'mr commits', weight: 1, call: () => get(`/api/v4/projects/${p}/merge_requests/${seeded.mr.bigIid}/commits`) },
      { name: 'mr discussions', weight: 1, call: () => get(`/api/v4/projects/${p}/merge_requests/${seeded.mr.bigIid}/discussions`) },
      { name: 'commits', weight: 1, call: () => get(`/api/v4/projects/${p}/repository/commits?ref_name=big&per_page=20`) },
      { name: 'issues', weight: 1, call: () => get(`/api/v4/projects/${i}/issues?per_page=20`) },
      { name: 'issue', weight: 1, call: (n) => get(`/api/v4/projects/${i}/issues/${1 + (n % ISSUES)}`) },
      { name: 'issue discussions', weight: 1, call: (n) => get(`/api/v4/projects/${i}/issues/${1 + (n % ISSUES)}/discussions`) },
      { name: 'users', weight: 1, call: () => get('/api/v4/users?per_page=20') },
      { name: 'branches', weight: 1, call: () => get(`/api/v4/projects/${p}/repository/branches`) },
      { name: 'tree', weight: 1, call: () => get(`/api/v4/projects/${p}/repository/tree?ref=big&path=src&per_page=20`) },
      { name: 'file', weight: 1, call: () => get(`/api/v4/projects/${p}/repository/files/README.md?ref=master`) },
      { name: 'file raw', weight: 1, call: () => get(`/api/v4/projects/${p}/repository/files/README.md/raw?ref=master`) },
      { name: 'search', weight: 1, call: () => get('/api/v4/projects?search=project-12&per_page=20') },
      { name: 'git pull', weight: 0.5, call: () => pull() },
      { name: 'git push', weight: 0.2, call: (n) => push(n) },
    ];
    // Only what geoforge has: an endpoint that does not answer 2xx before the load is left out and named.
    const endpoints: Endpoint[] = [];
    const missing: string[] = [];
    for (const endpoint of candidates) {
      if (endpoint.name === 'git push') {
        endpoints.push(endpoint);
        continue;
      }
      (await endpoint.call(0).catch(() => 'failed')) === 'ok' ? endpoints.push(endpoint) : missing.push(endpoint.name);
    }
    if (missing.length) console.log(`left out (not 2xx here): ${missing.join(', ')}`);

    // Warm-up: a few seconds at the lowest rate, not measured.
    await openLoop(endpoints, rates[0]!, Math.min(5, seconds));
    const pids = [process.pid, server.pid];
    const results: LevelResult[] = [];
    for (const rate of rates) {
      const before = sampleCpu(pids);
      pushTimes = [];
      const level = await openLoop(endpoints, rate, seconds);
      const noise = cpuNoise(before, sampleCpu(pids));
      results.push(level);
      console.log(
        `${rate} req/s: achieved ${level.achieved.toFixed(1)}/s, success ${(level.success * 100).toFixed(2)} %, p50 ${level.p50.toFixed(1)} ms, p90 ${level.p90.toFixed(1)} ms ` +
          `${passes(level) ? 'pass' : 'FAIL'} (steal ${noise.stealPercent.toFixed(1)} %, other ${noise.otherPercent.toFixed(1)} %)`,
      );
      console.log(`  ${refusedLine(level)}`);
      console.log(`  ${pushLine(pushTimes)}`);
      const rows = [...level.byEndpoint].map(([name, stats]) => ({ name, p90: stats.latencies.length ? percentile(stats.latencies, 90) : NaN, n: stats.latencies.length, failed: stats.failed, refused: stats.refused }));
      rows.sort((a, b) => b.p90 - a.p90);
      console.log(
        `  p90 by endpoint: ${rows.map((row) => `${row.name} ${row.p90.toFixed(1)} ms (${row.n}${row.failed ? `, ${row.failed} failed` : ''}${row.refused ? `, ${row.refused} refused` : ''})`).join('; ')}`,
      );
    }
    await servers.close();

    const top = results[results.length - 1]!;
    const details = [
      ...results.map(
        (level) =>
          `${level.rate}/s: achieved ${level.achieved.toFixed(1)}/s, success ${(level.success * 100).toFixed(2)} %, p90 ${level.p90.toFixed(1)} ms ${passes(level) ? 'pass' : 'FAIL'}, refused ${level.refused[429] + level.refused[503]}`,
      ),
      `ratio = ${P90_LIMIT_MS} ms / p90 at ${top.rate}/s (goal >= 4: p90 < 50 ms)`,
      `${endpoints.length} endpoints${missing.length ? ` (left out: ${missing.join(', ')})` : ''}`,
      `${count(USERS)} users, ${count(PROJECTS)} projects, ${count(ISSUES)} issues, ${count(MERGE_REQUESTS)} merge requests seeded in ${ms(seedMs)}`,
      `${seconds} s per level`,
      canPin ? `server on core ${SERVER_CORE}, load on core ${LOAD_CORE}` : 'unpinned (no taskset or < 2 cores)',
    ];
    return { ratio: P90_LIMIT_MS / top.p90, details: details.join(', ') } satisfies Outcome;
  },
};
