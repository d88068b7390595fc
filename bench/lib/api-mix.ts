// GitLab Performance Tool's API mix (issue 20, item 7): its seed data, its endpoints (with git
// pulls and pushes) and its open loop, for the scenarios that drive that mix (gpt-mix,
// background-isolation).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { Pool } from 'undici';
import { findUserById } from '../../src/db/tables/users.js';
import { applicationSettings } from '../../src/services/administration/application-settings.js';
import { createGroup } from '../../src/services/groups/groups.js';
import { createProject } from '../../src/services/projects/create.js';
import { repositoryPath } from '../../src/storage/layout.js';
import { siteDb } from './geo.js';
import { openSeedSite, ROOT_TOKEN } from './geoforge.js';
import type { Scope } from './scope.js';
import { growIssues, seedIssueProject, type IssueProject } from './seed-issues.js';
import { growMergeRequests, seedMergeRequestProject, type MergeRequestProject } from './seed-merge-requests.js';
import { growProjects, userNamespaces } from './seed-projects.js';
import { seedUsers } from './seed-users.js';
import { loadSeconds } from './settings.js';
import { percentile } from './stats.js';

const run = promisify(execFile);

/** The files of the merge request whose changes are read (GPT's `changes` test reads a large-ish one). */
const MR_FILES = 20;
/** Requests in flight at most; one due past it is not sent and counted as skipped (the open loop never waits). */
export const MAX_IN_FLIGHT = 1024;

export interface MixSizes {
  readonly users: number;
  readonly projects: number;
  readonly issues: number;
  readonly mergeRequests: number;
}

export interface MixData {
  readonly mr: MergeRequestProject;
  readonly issues: IssueProject;
  readonly groupId: number;
  readonly sizes: MixSizes;
}

/** How a request ended: 2xx, refused by the site's admission control (429 queue full, 503 queue timeout), or anything else. */
export type Answer = 'ok' | 429 | 503 | 'failed';

const answerOf = (status: number): Answer => (status >= 200 && status < 300 ? 'ok' : status === 429 || status === 503 ? status : 'failed');

export interface Endpoint {
  readonly name: string;
  /** Share of the mix, relative to the others. */
  readonly weight: number;
  /** One request (or, for a pull, the requests of one fetch); resolves to how it ended. */
  call(n: number): Promise<Answer>;
}

export interface LevelResult {
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

/** A push's outcome and its own time, from its turn (pushes run one at a time), not from when it was due. */
export interface PushTime {
  readonly answer: Answer;
  readonly ms: number;
}

/**
 * Seeds the mix's data into `dataDir` (GitLab's 10k reference data scaled to one SQLite site at
 * full size): users through the users service, a project with a real repository and merge
 * requests, a project with issues, a public group of 20 projects, then projects, issues and
 * merge requests grown straight into SQLite. The grown merge requests are stored as the
 * mergeability check stores one whose source branch is gone (`cannot_be_merged` against
 * master's head), so a site started on the data has no background check to run.
 */
export async function seedMixData(dataDir: string, sizes: MixSizes): Promise<MixData> {
  const file = siteDb(dataDir);
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
    const userIds = await seedUsers(site.db, sizes.users);
    return { mr, issues, groupId: group.id, userIds };
  })().finally(() => site.stop());
  growProjects(file, { namespaces: userNamespaces(file, seeded.userIds), seeded: 0 }, sizes.projects);
  growIssues(file, seeded.issues, 0, sizes.issues);
  growMergeRequests(file, seeded.mr, sizes.mergeRequests);
  const master = await masterHead(dataDir, seeded.mr.projectId);
  const db = new Database(file, { fileMustExist: true });
  try {
    db.prepare(
      "UPDATE merge_requests SET merge_status = 'cannot_be_merged', merge_status_source_sha = NULL, merge_status_target_sha = ? WHERE target_project_id = ? AND iid != ? AND state = 'opened' AND merge_status = 'unchecked'",
    ).run(master, seeded.mr.projectId, seeded.mr.bigIid);
  } finally {
    db.close();
  }
  return { mr: seeded.mr, issues: seeded.issues, groupId: seeded.groupId, sizes };
}

export const masterHead = async (dataDir: string, projectId: number): Promise<string> =>
  (await run('git', ['--git-dir', repositoryPath(dataDir, projectId), 'rev-parse', 'refs/heads/master'])).stdout.trim();

/**
 * The mix's endpoints against a running site, as root's token, over one undici pool (closed with
 * `scope`); pushes go one at a time from a clone in `workDir`, each timed into `pushTimes` (the
 * caller empties it per level). An endpoint that does not answer 2xx once before the load is left
 * out and named in `missing`.
 */
export async function mixEndpoints(scope: Scope, url: string, data: MixData, workDir: string): Promise<{ endpoints: Endpoint[]; missing: string[]; pushTimes: PushTime[] }> {
  // A connection per request in flight, as many clients would have: fewer would queue requests in
  // the load generator, where the site can neither see nor refuse them.
  const pool = new Pool(url, { connections: MAX_IN_FLIGHT, pipelining: 1 });
  scope.defer(() => pool.close());
  const headers = { 'private-token': ROOT_TOKEN };
  const get = async (target: string): Promise<Answer> => {
    const response = await pool.request({ path: target, method: 'GET', headers, headersTimeout: 30_000, bodyTimeout: 30_000 });
    await response.body.dump({ limit: Infinity });
    return answerOf(response.statusCode);
  };
  const mrProject = (await (await fetch(`${url}/api/v4/projects/${data.mr.projectId}`, { headers })).json()) as { path_with_namespace: string };
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
  const remote = `${url.replace('://', `://root:${ROOT_TOKEN}@`)}${repoPath}`;
  const git = (args: string[]) => run('git', args, { cwd: workDir, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } });
  await run('git', ['clone', '--quiet', remote, workDir]);
  await git(['config', 'user.email', 'bench@example.com']);
  await git(['config', 'user.name', 'Bench']);
  let pushes: Promise<Answer> = Promise.resolve('ok');
  const pushTimes: PushTime[] = [];
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

  const p = data.mr.projectId;
  const i = data.issues.projectId;
  const { issues, mergeRequests } = data.sizes;
  const candidates: Endpoint[] = [
    { name: 'project', weight: 1, call: () => get(`/api/v4/projects/${p}`) },
    { name: 'projects list', weight: 1, call: () => get('/api/v4/projects?per_page=20') },
    { name: 'group projects', weight: 1, call: () => get(`/api/v4/groups/${data.groupId}/projects?per_page=20`) },
    { name: 'merge requests', weight: 1, call: () => get(`/api/v4/projects/${p}/merge_requests?per_page=20`) },
    { name: 'merge request', weight: 1, call: (n) => get(`/api/v4/projects/${p}/merge_requests/${1 + (n % mergeRequests)}`) },
    { name: 'changes', weight: 1, call: () => get(`/api/v4/projects/${p}/merge_requests/${data.mr.bigIid}/changes`) },
    { name: 'mr commits', weight: 1, call: () => get(`/api/v4/projects/${p}/merge_requests/${data.mr.bigIid}/commits`) },
    { name: 'mr discussions', weight: 1, call: () => get(`/api/v4/projects/${p}/merge_requests/${data.mr.bigIid}/discussions`) },
    { name: 'commits', weight: 1, call: () => get(`/api/v4/projects/${p}/repository/commits?ref_name=big&per_page=20`) },
    { name: 'issues', weight: 1, call: () => get(`/api/v4/projects/${i}/issues?per_page=20`) },
    { name: 'issue', weight: 1, call: (n) => get(`/api/v4/projects/${i}/issues/${1 + (n % issues)}`) },
    { name: 'issue discussions', weight: 1, call: (n) => get(`/api/v4/projects/${i}/issues/${1 + (n % issues)}/discussions`) },
    { name: 'users', weight: 1, call: () => get('/api/v4/users?per_page=20') },
    { name: 'branches', weight: 1, call: () => get(`/api/v4/projects/${p}/repository/branches`) },
    { name: 'tree', weight: 1, call: () => get(`/api/v4/projects/${p}/repository/tree?ref=big&path=src&per_page=20`) },
    { name: 'file', weight: 1, call: () => get(`/api/v4/projects/${p}/repository/files/README.md?ref=master`) },
    { name: 'file raw', weight: 1, call: () => get(`/api/v4/projects/${p}/repository/files/README.md/raw?ref=master`) },
    { name: 'search', weight: 1, call: () => get('/api/v4/projects?search=project-12&per_page=20') },
    { name: 'git pull', weight: 0.5, call: () => pull() },
    { name: 'git push', weight: 0.2, call: (n) => push(n) },
  ];
  const endpoints: Endpoint[] = [];
  const missing: string[] = [];
  for (const endpoint of candidates) {
    if (endpoint.name === 'git push') endpoints.push(endpoint);
    else if ((await endpoint.call(0).catch(() => 'failed')) === 'ok') endpoints.push(endpoint);
    else missing.push(endpoint.name);
  }
  return { endpoints, missing, pushTimes };
}

/**
 * Starts requests on schedule at `rate`/s for `seconds` (a few hundred requests under BENCH_SMOKE),
 * never waiting for answers (open loop); latency is start to last byte.
 */
export async function openLoop(endpoints: readonly Endpoint[], rate: number, seconds: number): Promise<LevelResult> {
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
    const answer = await endpoint.call(n).catch((): Answer => 'failed');
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
  const end = start + loadSeconds(rate, seconds) * 1000;
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

/** The slowest endpoints of a level by p90, for the report. */
export const endpointP90s = (level: LevelResult, top = 5): string =>
  [...level.byEndpoint]
    .map(([name, stats]) => ({ name, p90: stats.latencies.length ? percentile(stats.latencies, 90) : NaN, n: stats.latencies.length, failed: stats.failed, refused: stats.refused }))
    .sort((a, b) => b.p90 - a.p90)
    .slice(0, top)
    .map((row) => `${row.name} ${row.p90.toFixed(1)} ms (${row.n}${row.failed ? `, ${row.failed} failed` : ''}${row.refused ? `, ${row.refused} refused` : ''})`)
    .join('; ');
