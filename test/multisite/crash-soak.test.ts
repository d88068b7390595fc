import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { runLocalCommand } from '../../src/geo/local-command.js';
import { refsChecksum } from '../../src/geo/repository-checksum.js';
import { lfsObjectPath, repositoryPath, uploadFilePath, wikiRepositoryPath } from '../../src/storage/layout.js';
import { FAST_SYNC_ENV, postFile, registryOf } from '../helpers/geo-blobs.js';
import { gitClient, remoteUrl } from '../helpers/git.js';
import { jsonOut, siteState } from '../helpers/failover.js';
import { GEO_SECRET, ROOT_TOKEN, useCluster, waitFor, type SiteProcess } from '../helpers/multisite.js';

/**
 * Issue 20, item 4: a crash soak. Mixed writes of every family through the API, git pushes over
 * smart HTTP and LFS uploads on a primary with two secondaries, while sites are SIGKILLed at
 * seeded random points (a secondary mid-snapshot, mid-transfer, mid-push sync; the primary
 * mid-push and mid-merge). Afterwards every site converges table by table and repository by
 * repository, and every write answered 2xx is found on the primary and on each secondary.
 * Then, writes stopped, two planned failovers (a secondary promoted, then the first primary
 * back), with the promoted site killed mid-promotion, the other secondary mid-repoint and the
 * old primary mid-demote; at the end all three sites converge to the last primary, which holds
 * every acknowledged write, and writes on each new primary replicate.
 *
 * GEOFORGE_SOAK_SECONDS (default 45) bounds the mixed writes (the failovers add 15 to 30 s),
 * GEOFORGE_SOAK_KILLS (default 20) is the fewest kills they must survive, GEOFORGE_SOAK_SEED
 * replays a run's random points (the seed is logged; timing still varies).
 */
const SOAK_MS = Number(process.env.GEOFORGE_SOAK_SECONDS ?? 45) * 1000;
const MIN_KILLS = Number(process.env.GEOFORGE_SOAK_KILLS ?? 20);
const SEED = Number(process.env.GEOFORGE_SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31));
const WORKERS = 3;
/** The most kills of each failover command (the promotion, then the re-point and the demotion) before it runs unkilled. */
const PROMOTION_KILLS = 3;
const REPOINT_KILLS = 2;

/** mulberry32: a small seeded generator, so a failing run can be replayed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ROOT = { username: 'root', token: ROOT_TOKEN };

/** An acknowledged write and how to find it again: a GET whose body must hold `expect`, or a file with a sha256. */
type LedgerEntry =
  | { kind: string; get: string; expect: Record<string, unknown> }
  | { kind: 'branch'; projectId: number; branch: string; sha: string }
  | { kind: 'file'; what: 'lfs' | 'upload'; relative: (site: SiteProcess) => string; sha256: string };

interface Project {
  id: number;
  path_with_namespace: string;
  default_branch: string;
  /** Per worker: a clone of the project, made on first use. */
  clones: Map<number, string>;
  issues: number[];
  wiki: number;
}

describe('crash soak: mixed writes on a primary and two secondaries, sites SIGKILLed at random points', () => {
  let primary: SiteProcess;
  let secondaries: SiteProcess[];
  let work: string;
  const git = () => gitClient(path.join(work, 'home'), 60_000);

  // The embedded mode: the soak needs 20 kills in its time, and a site of workers takes about twice
  // as long to boot again; test/multisite/worker-processes.test.ts kills workers.
  const EMBEDDED = { GEOFORGE_WORKERS: '0' };
  useCluster(2, { primaryEnv: EMBEDDED, secondaryEnv: { ...FAST_SYNC_ENV, ...EMBEDDED }, timeoutMs: 60_000 }, (sites) => ({ primary, secondaries } = sites));
  beforeAll(async () => {
    work = await mkdtemp(path.join(tmpdir(), 'geoforge-soak-'));
  }, 60_000);
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it(`survives at least ${MIN_KILLS} kills and two failovers killed mid-promotion, losing no acknowledged write, and every site converges`, async () => {
    console.info(`crash soak: seed ${SEED} (GEOFORGE_SOAK_SEED=${SEED} replays it), ${SOAK_MS / 1000} s, at least ${MIN_KILLS} kills`);
    const random = seeded(SEED);
    const pick = <T,>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
    const ledger: LedgerEntry[] = [];
    const projects: Project[] = [];
    const kills: string[] = [];
    const refused: Record<string, number> = {};
    let counter = 0;
    /** The first few reasons writes were refused, for the log. */
    const samples: string[] = [];
    let stopping = false;
    let primaryDown = false;
    /** Where writes go: the primary, and after the failover the promoted secondary. */
    let writeTo = primary;
    const started = Date.now();

    /** A write that may meet a dead primary: null unless answered 2xx. */
    const write = async (apiPath: string, body: unknown, method = 'POST') => {
      const response = await writeTo.api(apiPath, { method, body }).catch(() => null);
      if (!response || response.status >= 300) {
        const key = response ? String(response.status) : 'no answer';
        refused[key] = (refused[key] ?? 0) + 1;
        return null;
      }
      return response;
    };

    const createProject = async () => {
      const n = ++counter;
      const created = await write('/projects', { name: `soak-${n}`, initialize_with_readme: true });
      if (!created) return;
      ledger.push({ kind: 'project', get: `/projects/${created.body.id}`, expect: { id: created.body.id, name: `soak-${n}` } });
      projects.push({ id: created.body.id, path_with_namespace: created.body.path_with_namespace, default_branch: created.body.default_branch, clones: new Map(), issues: [], wiki: 0 });
    };

    /** Commits a file on a fresh branch off the default branch and pushes it; the branch and sha when the push was acknowledged. */
    const push = async (project: Project, worker: number, bytes = 2_000): Promise<{ branch: string; sha: string } | null> => {
      const run = git();
      let clone = project.clones.get(worker);
      try {
        if (!clone) {
          clone = path.join(work, `p${project.id}-w${worker}`);
          await run(['clone', '--quiet', remoteUrl(writeTo.url, project, ROOT), clone]);
          project.clones.set(worker, clone);
        }
        const branch = `soak-${++counter}`;
        await run(['fetch', '--quiet', 'origin', project.default_branch], clone);
        await run(['checkout', '--quiet', '-B', branch, `origin/${project.default_branch}`], clone);
        const content = Buffer.alloc(bytes);
        for (let i = 0; i < bytes; i++) content[i] = Math.floor(random() * 256);
        await writeFile(path.join(clone, `${branch}.bin`), content);
        await run(['add', '.'], clone);
        await run(['commit', '--quiet', '-m', branch], clone);
        const sha = (await run(['rev-parse', 'HEAD'], clone)).stdout.trim();
        await run(['push', '--quiet', 'origin', `${branch}:refs/heads/${branch}`], clone);
        ledger.push({ kind: 'branch', projectId: project.id, branch, sha });
        return { branch, sha };
      } catch (error) {
        refused.push = (refused.push ?? 0) + 1;
        if (samples.length < 5) samples.push(String((error as Error).message).slice(0, 300));
        if (clone && !project.clones.has(worker)) await rm(clone, { recursive: true, force: true });
        return null;
      }
    };

    const lfsUpload = async (project: Project) => {
      const n = ++counter;
      const content = Buffer.from(`lfs object ${n} ${random()}\n`.repeat(1 + Math.floor(random() * 50)));
      const oid = sha256(content);
      const response = await request(`${writeTo.url}/${project.path_with_namespace}.git/gitlab-lfs/objects/${oid}/${content.length}`, {
        method: 'PUT',
        headers: { authorization: `Basic ${Buffer.from(`root:${ROOT_TOKEN}`).toString('base64')}`, 'content-type': 'application/octet-stream' },
        body: content,
      }).catch(() => null);
      await response?.body.dump();
      if (response?.statusCode !== 200) {
        refused.lfs = (refused.lfs ?? 0) + 1;
        if (samples.length < 5) samples.push(`lfs: ${response?.statusCode}`);
        return;
      }
      ledger.push({ kind: 'file', what: 'lfs', relative: (site) => lfsObjectPath(site.dataDir, oid), sha256: oid });
    };

    const upload = async (project: Project, bytes: number) => {
      const n = ++counter;
      const content = Buffer.alloc(bytes, n % 251);
      const name = `upload-${n}.bin`;
      const body = await postFile(writeTo, `/projects/${project.id}/uploads`, name, content).catch(() => null);
      if (!body) {
        refused.upload = (refused.upload ?? 0) + 1;
        return;
      }
      const secret = String(body.url).split('/')[2];
      ledger.push({ kind: 'file', what: 'upload', relative: (site) => uploadFilePath(site.dataDir, { project_id: project.id, secret, filename: name }), sha256: sha256(content) });
    };

    /** Pushes a branch, opens a merge request from it and merges it; `onMerge` runs as the merge is sent (the kill point). */
    const mergeRequest = async (project: Project, worker: number, onMerge?: () => Promise<void>) => {
      const pushed = await push(project, worker);
      if (!pushed) return;
      const created = await write(`/projects/${project.id}/merge_requests`, { source_branch: pushed.branch, target_branch: project.default_branch, title: `merge ${pushed.branch}` });
      if (!created) return;
      const iid = created.body.iid;
      ledger.push({ kind: 'merge_request', get: `/projects/${project.id}/merge_requests/${iid}`, expect: { iid, title: `merge ${pushed.branch}` } });
      const merging = write(`/projects/${project.id}/merge_requests/${iid}/merge`, {}, 'PUT');
      await onMerge?.();
      const merged = await merging;
      if (merged) ledger.push({ kind: 'merge', get: `/projects/${project.id}/merge_requests/${iid}`, expect: { state: 'merged', merge_commit_sha: merged.body.merge_commit_sha } });
    };

    const operations: Array<(worker: number) => Promise<void>> = [
      async () => {
        const n = ++counter;
        const created = await write('/users', { username: `soak${n}`, email: `soak${n}@example.com`, name: `Soak ${n}`, reset_password: true });
        if (created) ledger.push({ kind: 'user', get: `/users/${created.body.id}`, expect: { username: `soak${n}` } });
      },
      async () => {
        const n = ++counter;
        const created = await write('/groups', { name: `Soak group ${n}`, path: `soak-group-${n}` });
        if (created) ledger.push({ kind: 'group', get: `/groups/${created.body.id}`, expect: { path: `soak-group-${n}` } });
      },
      createProject,
      async () => {
        const project = pick(projects);
        const title = `issue ${++counter}`;
        const created = await write(`/projects/${project.id}/issues`, { title, description: 'soak' });
        if (!created) return;
        project.issues.push(created.body.iid);
        ledger.push({ kind: 'issue', get: `/projects/${project.id}/issues/${created.body.iid}`, expect: { title } });
      },
      async () => {
        const project = pick(projects);
        if (!project.issues.length) return;
        const iid = pick(project.issues);
        const body = `note ${++counter}`;
        const created = await write(`/projects/${project.id}/issues/${iid}/notes`, { body });
        if (created) ledger.push({ kind: 'note', get: `/projects/${project.id}/issues/${iid}/notes/${created.body.id}`, expect: { body } });
      },
      async () => {
        const project = pick(projects);
        const name = `label-${++counter}`;
        const created = await write(`/projects/${project.id}/labels`, { name, color: '#428bca' });
        if (created) ledger.push({ kind: 'label', get: `/projects/${project.id}/labels/${created.body.id}`, expect: { name } });
      },
      async () => {
        const project = pick(projects);
        const n = ++counter;
        const created = await write(`/projects/${project.id}/wikis`, { title: `page${n}`, content: `wiki ${n}` });
        if (created) ledger.push({ kind: 'wiki', get: `/projects/${project.id}/wikis/${created.body.slug}`, expect: { title: `page${n}`, content: `wiki ${n}` } });
      },
      async (worker) => void (await push(pick(projects), worker)),
      async (worker) => mergeRequest(pick(projects), worker),
      async () => lfsUpload(pick(projects)),
      async () => upload(pick(projects), 1000 + Math.floor(random() * 5000)),
    ];

    for (let i = 0; i < 3; i++) await createProject();
    expect(projects.length).toBe(3);

    const workers = Array.from({ length: WORKERS }, async (_, worker) => {
      while (!stopping) {
        // While the primary restarts, new writes wait (those in flight at the kill met it).
        while (primaryDown && !stopping) await sleep(50);
        await pick(operations)(worker);
      }
    });

    const nodeIdOf = async (site: SiteProcess) => (await primary.api('/geo_nodes')).body.find((node: any) => node.name === site.name).id as number;
    const killAndRestart = async (site: SiteProcess, point: string) => {
      if (site === primary) primaryDown = true;
      await site.kill('SIGKILL');
      kills.push(`${site.name} ${point}`);
      await site.start({ timeoutMs: 60_000 });
      if (site === primary) primaryDown = false;
    };
    /** Waits for `text` to appear in the site's output after `from`, at most `ms`. */
    const outputAfter = (site: SiteProcess, from: number, text: string, ms: number) =>
      waitFor(() => site.output.slice(from).includes(text), { timeoutMs: ms, intervalMs: 5 }).catch(() => false);

    const scenarios: Array<() => Promise<void>> = [
      // A secondary mid-snapshot: a repair makes it re-bootstrap; killed as the download starts or a little later.
      async () => {
        const site = pick(secondaries);
        const from = site.output.length;
        const repaired = await primary.api(`/geo_nodes/${await nodeIdOf(site)}/repair`, { method: 'POST' }).catch(() => null);
        if (repaired?.status !== 201) return;
        await outputAfter(site, from, 'bootstrapping from the primary snapshot', 5_000);
        await sleep(random() * 100);
        await killAndRestart(site, 'mid-snapshot');
      },
      // A secondary mid-transfer: a 3 MB upload streams alone; killed while it syncs.
      async () => {
        const site = pick(secondaries);
        await upload(pick(projects), 3 * 1024 * 1024);
        await sleep(random() * 300);
        await killAndRestart(site, 'mid-transfer');
      },
      // A secondary mid-push sync.
      async () => {
        const site = pick(secondaries);
        await push(pick(projects), WORKERS, 200_000);
        await sleep(random() * 200);
        await killAndRestart(site, 'mid-push sync');
      },
      // The primary mid-push: a 1 MB commit on its way.
      async () => {
        const pushing = push(pick(projects), WORKERS, 1024 * 1024);
        await sleep(random() * 400);
        await killAndRestart(primary, 'mid-push');
        await pushing;
      },
      // The primary mid-merge.
      async () => {
        await mergeRequest(pick(projects), WORKERS, async () => {
          await sleep(random() * 150);
          await killAndRestart(primary, 'mid-merge');
        });
      },
      // Anywhere: a secondary at a random moment of the mixed writes.
      async () => {
        await sleep(random() * 500);
        await killAndRestart(pick(secondaries), 'at random');
      },
    ];
    while (Date.now() - started < SOAK_MS || kills.length < MIN_KILLS) {
      await pick(scenarios)();
      // A guard on the loop, not on the figure: on a loaded 2-core machine a site takes about 4 s to restart, so 20 kills can need more than 3x the soak.
      if (Date.now() - started > SOAK_MS * 5) break;
    }
    stopping = true;
    await Promise.all(workers);
    const soakMs = Date.now() - started;
    expect(kills.length, `kills in ${Date.now() - started} ms: ${JSON.stringify(kills)}`).toBeGreaterThanOrEqual(MIN_KILLS);

    const figures = { rows: 0, tables: 0, repositories: 0, files: 0, reads: 0 };
    /** Waits until `follower` is at `leader`'s newest event with every replicated table equal (a digest per table). */
    const sameTables = (leader: SiteProcess, follower: SiteProcess) =>
      waitFor(
        () => {
          const want = siteState(leader);
          const got = siteState(follower);
          if (!got.following) throw new Error(`${follower.name} follows no primary yet`);
          if (got.position !== want.position) throw new Error(`${follower.name} cursor ${got.position}, ${leader.name} at ${want.position}`);
          expect(Object.keys(got.tables)).toEqual(Object.keys(want.tables));
          const digest = (rows: unknown[][]) => sha256(JSON.stringify(rows));
          for (const table of Object.keys(want.tables)) expect(digest(got.tables[table]), `${follower.name}: table ${table}`).toBe(digest(want.tables[table]));
          figures.rows += Object.values(want.tables).reduce((sum, rows) => sum + rows.length, 0);
          figures.tables += Object.keys(want.tables).length;
          return true;
        },
        { timeoutMs: 60_000, message: `${follower.name} converged to ${leader.name} table by table` },
      );
    /** Waits until `follower` has the refs (and HEAD) of every repository and wiki of `leader`. */
    const sameRepositories = async (leader: SiteProcess, follower: SiteProcess) => {
      const db = leader.openReadOnly();
      const projectIds = db.prepare('SELECT id FROM projects ORDER BY id').pluck().all() as number[];
      db.close();
      for (const id of projectIds) {
        for (const where of [repositoryPath, wikiRepositoryPath]) {
          const want = await refsChecksum(where(leader.dataDir, id));
          if (want === null) continue;
          await waitFor(async () => (await refsChecksum(where(follower.dataDir, id))) === want, { timeoutMs: 60_000, message: `${follower.name}: refs of ${path.basename(where(follower.dataDir, id))}` }).catch(
            async (error: Error) => {
              // What the follower believes of it, and both sides' refs: the report a divergence needs.
              const refs = async (dir: string) => (await git()(['for-each-ref', '--format=%(objectname) %(refname)'], dir).catch((failure: Error) => ({ stdout: failure.message }))).stdout;
              const rows = registryOf(follower).filter((row) => row.path === path.relative(leader.dataDir, where(leader.dataDir, id)));
              error.message += `\nregistry: ${JSON.stringify(rows)}\n${leader.name} refs:\n${await refs(where(leader.dataDir, id))}\n${follower.name} refs:\n${await refs(where(follower.dataDir, id))}\n${follower.name} log:\n${follower.output.slice(-6000)}`;
              throw error;
            },
          );
          figures.repositories++;
        }
      }
    };
    /** No acknowledged write lost: each found on `leader` and, served locally, on each follower. */
    const ledgerOn = async (leader: SiteProcess, followers: readonly SiteProcess[]) => {
      for (const site of [leader, ...followers]) {
        for (const entry of ledger) {
          if ('get' in entry) {
            const got = await site.api(entry.get);
            expect(got.status, `${site.name}: ${entry.kind} ${entry.get}`).toBe(200);
            expect(got.headers['x-geoforge-node'], `${entry.get} served by ${site.name} itself`).toBe(site.name);
            expect(got.body, `${site.name}: ${entry.kind} ${entry.get}`).toMatchObject(entry.expect);
          } else if (entry.kind === 'branch') {
            const got = await site.api(`/projects/${entry.projectId}/repository/branches/${entry.branch}`);
            expect(got.status, `${site.name}: branch ${entry.branch} of project ${entry.projectId}`).toBe(200);
            expect(got.body.commit.id, `${site.name}: branch ${entry.branch}`).toBe(entry.sha);
          } else {
            const file = entry.relative(site);
            const content = await waitFor(() => readFile(file), { timeoutMs: site === leader ? 0 : 30_000, message: `${site.name}: ${file}` });
            expect(sha256(content), file).toBe(entry.sha256);
            figures.files++;
          }
          figures.reads++;
        }
      }
    };

    // Every site converges, table by table and repository by repository, and holds every acknowledged write.
    const convergeStarted = Date.now();
    for (const site of secondaries) await sameTables(primary, site);
    for (const site of secondaries) await sameRepositories(primary, site);
    const convergeMs = Date.now() - convergeStarted;
    const writesBeforeFailover = ledger.length;
    await ledgerOn(primary, secondaries);

    // Failover under kills, writes stopped, in two rounds: a planned promotion of a secondary,
    // SIGKILLed at seeded points of it and run again until done; the other secondary re-pointed at
    // it and the old primary demoted, each SIGKILLed mid-command too; then new writes of every kind
    // on the new primary. The second round promotes the demoted first primary back (epoch 2).
    // Never two primaries taking writes, never a site that cannot boot; at the end the last primary
    // holds every acknowledged write and both other sites converge to it.
    const failoverStarted = Date.now();
    const killPoints: Record<string, number> = {};
    const roleOf = (site: SiteProcess): any => {
      try {
        return JSON.parse(readFileSync(path.join(site.dataDir, 'geo-role.json'), 'utf8'));
      } catch {
        return null;
      }
    };
    /**
     * Runs `command`, a failover command of `site` that never rejects, and SIGKILLs the site at a
     * seeded point of it: as it is sent, `delayMs` or less into it, or the moment its
     * geo-role.json shows `switched` (the new role persisted, the switch under way); then restarts
     * it. Nothing is killed when the command ended first.
     */
    const killMidCommand = async <T,>(site: SiteProcess, label: string, command: () => Promise<T>, switched: (state: any) => boolean, delayMs: number) => {
      const point = pick(['as sent', 'after a delay', 'as geo-role.json changes']);
      let ended = false;
      const running = command().finally(() => (ended = true));
      if (point === 'as sent') await sleep(random() * 20);
      else if (point === 'after a delay') await sleep(random() * delayMs);
      else await waitFor(() => ended || switched(roleOf(site)), { timeoutMs: 90_000, intervalMs: 2, message: `${site.name} ${label}: ${point}` });
      if (ended) return { killed: false, result: await running };
      await site.kill('SIGKILL');
      kills.push(`${site.name} ${label}`);
      killPoints[`${label} ${point}`] = (killPoints[`${label} ${point}`] ?? 0) + 1;
      const result = await running;
      await site.start({ timeoutMs: 90_000 });
      return { killed: true, result };
    };
    const newUser = async (site: SiteProcess) => {
      const n = ++counter;
      return site.api('/users', { method: 'POST', body: { username: `soak${n}`, email: `soak${n}@example.com`, name: `Soak ${n}`, reset_password: true } });
    };
    const rounds: string[] = [];
    /** `geoforge geo follow|demote <url>` as the CLI sends it to its site (signed under the site's node name): the report, or the error. */
    const localCommand = async (site: SiteProcess, command: 'follow' | 'demote', primaryUrl: string) => {
      const config = { geoSecret: GEO_SECRET, externalUrl: site.url, nodeName: site.name, host: '127.0.0.1', port: site.port } as Config;
      let last: Record<string, unknown> = { error: 'no answer' };
      try {
        for await (const line of runLocalCommand(config, command, { primary_url: primaryUrl })) last = line;
      } catch (error) {
        last = { error: (error as Error).message };
      }
      return last;
    };

    /** One failover round: `next` promoted from `old` (to `epoch`), `other` re-pointed, `old` demoted, then writes on `next`. */
    const failover = async (old: SiteProcess, next: SiteProcess, other: SiteProcess, epoch: number) => {
      /** Once `next` is the primary, `old` refuses writes (503) and `next` takes them. */
      const onePrimary = async () => {
        if (roleOf(next)?.role !== 'primary' || roleOf(old)?.role === 'secondary') return;
        const refused = await newUser(old);
        expect(refused.status, `${old.name} took a write while ${next.name} is the primary`).toBe(503);
        // Fenced (it names the new primary's URL) or, if the new primary's epoch has not reached it yet, still frozen by its promotion.
        expect([next.url, `${next.name} is being promoted`].some((text) => String(refused.body.message).includes(text)), refused.text).toBe(true);
        const taken = await newUser(next);
        expect(taken.status, `${next.name}, promoted, takes writes: ${taken.text}`).toBe(201);
        ledger.push({ kind: 'user', get: `/users/${taken.body.id}`, expect: { username: taken.body.username } });
      };
      const times: number[] = [Date.now()];
      const nodeId = (await next.api('/geo_nodes')).body.find((node: any) => node.name === next.name).id as number;
      const promote = () =>
        next.api(`/geo_nodes/${nodeId}/promote`, { method: 'POST', body: { timeout_ms: 60_000 } }).catch((error: Error) => ({ status: 0, body: { message: error.message }, text: error.message }));
      let promotion: any = null;
      for (let attempt = 0; attempt < PROMOTION_KILLS && roleOf(next)?.role !== 'primary'; attempt++) {
        // A planned promotion of a caught-up secondary takes about 150 ms here, a re-point or a demotion about as long.
        const run = await killMidCommand(next, 'mid-promotion', promote, (state) => state?.role === 'primary', 150);
        if (!run.killed) {
          expect(run.result.status, run.result.text).toBe(201);
          promotion = run.result.body;
        }
        await onePrimary();
      }
      // Not done yet: the promotion runs again from the clear state the kills left.
      if (roleOf(next)?.role !== 'primary') {
        const done = await promote();
        expect(done.status, done.text).toBe(201);
        promotion = done.body;
      }
      if (promotion) expect(promotion).toMatchObject({ epoch, forced: false, missing_events: 0, unsynced_blobs_total: 0 });
      await onePrimary();
      // One promotion, recorded as the new primary's first events, whichever step the kills interrupted.
      expect(roleOf(next)).toMatchObject({ role: 'primary', epoch, ownEpoch: epoch });
      const db = next.openReadOnly();
      const record = db.prepare('SELECT * FROM geo_promotions WHERE epoch = ?').get(epoch);
      db.close();
      expect(record, `${next.name} recorded its promotion`).toMatchObject({ node_name: next.name, previous_primary_url: old.url, forced: 0 });

      times.push(Date.now());
      // The other secondary follows: it continues from its cursor, or re-bootstraps. Sent as the
      // CLI sends it, so a kill lands in the command rather than in node's start; once more with
      // the CLI when every try was killed, which is safe whatever the kills left.
      let followed: any = null;
      for (let attempt = 0; attempt < REPOINT_KILLS && roleOf(other)?.primaryUrl !== next.url; attempt++) {
        const run = await killMidCommand(other, 'mid-repoint', () => localCommand(other, 'follow', next.url), (state) => state?.primaryUrl === next.url, 300);
        if (!run.killed) followed = run.result;
      }
      followed ??= jsonOut(await other.cli(['geo', 'follow', next.url, '--json']));
      expect(followed).toMatchObject({ primary_url: next.url, epoch });
      times.push(Date.now());

      // The old primary, demoted: it took nothing the new one lacks, so it exports nothing.
      for (let attempt = 0; attempt < REPOINT_KILLS && roleOf(old)?.role !== 'secondary'; attempt++) {
        const run = await killMidCommand(old, 'mid-demote', () => localCommand(old, 'demote', next.url), (state) => state?.role === 'secondary', 300);
        if (!run.killed) expect(run.result).toMatchObject({ primary_url: next.url, exported_events: 0 });
      }
      if (roleOf(old)?.role !== 'secondary') expect(jsonOut(await old.cli(['geo', 'demote', '--primary-url', next.url, '--json']))).toMatchObject({ primary_url: next.url, exported_events: 0 });
      expect(readdirSync(old.dataDir).filter((name) => name.startsWith('geo-unreplicated-events')), `${old.name} exported writes ${next.name} lacks`).toEqual([]);

      times.push(Date.now());
      // New writes of every kind on the new primary, each answered 2xx.
      writeTo = next;
      const refusedBefore = JSON.stringify(refused);
      const before = projects.length;
      await createProject();
      expect(projects.length, `a project created on ${next.name}`).toBe(before + 1);
      const fresh = projects[before];
      for (const operation of operations.slice(0, 7)) await operation(WORKERS);
      expect(await push(fresh, WORKERS), `a push to ${next.name}`).not.toBeNull();
      await mergeRequest(fresh, WORKERS);
      await lfsUpload(fresh);
      await upload(fresh, 4000);
      expect(JSON.stringify(refused), `writes on ${next.name}, the new primary, all answered 2xx`).toBe(refusedBefore);
      times.push(Date.now());
      const [promoted, repointed, demoted, written] = times.slice(1).map((time, index) => time - times[index]);
      rounds.push(
        `${next.name} promoted (epoch ${epoch}) in ${promoted} ms, ${other.name} follows it in ${repointed} ms (${followed.mode}: ${followed.reason}), ` +
          `${old.name} demoted in ${demoted} ms, ${written} ms of writes on ${next.name}`,
      );
    };
    const [a, b] = random() < 0.5 ? secondaries : [...secondaries].reverse();
    await failover(primary, a, b, 1);
    // Every acknowledged write so far is on the first new primary.
    await ledgerOn(a, []);
    await failover(a, primary, b, 2);
    const failoverMs = Date.now() - failoverStarted;
    const afterFailover = ledger.length - writesBeforeFailover;

    const finalStarted = Date.now();
    for (const site of [a, b]) await sameTables(primary, site);
    for (const site of [a, b]) await sameRepositories(primary, site);
    const finalConvergeMs = Date.now() - finalStarted;
    await ledgerOn(primary, [a, b]);

    const byKind: Record<string, number> = {};
    for (const entry of ledger) {
      const kind = 'what' in entry ? entry.what : entry.kind;
      byKind[kind] = (byKind[kind] ?? 0) + 1;
    }
    console.info(
      `crash soak (seed ${SEED}): ${kills.length} kills survived (${kills.filter((kill) => kill.startsWith('primary')).length} of the first primary); writes ${soakMs} ms, two failovers ${failoverMs} ms; ` +
        `${ledger.length} acknowledged writes (${afterFailover} of them on the new primaries) checked on 3 sites, before and after the failovers (${figures.reads} reads; ${JSON.stringify(byKind)}); ` +
        `refused or unanswered: ${JSON.stringify(refused)} (${samples.join(' | ')}); ` +
        `${figures.rows} rows in ${figures.tables} table digests, ${figures.repositories} repositories and ${figures.files} files compared; ` +
        `converged in ${convergeMs} ms, after the failovers in ${finalConvergeMs} ms; ${rounds.join('; then ')}; ` +
        `kills: ${JSON.stringify(kills.reduce<Record<string, number>>((count, kill) => ({ ...count, [kill]: (count[kill] ?? 0) + 1 }), {}))}; failover kills by point: ${JSON.stringify(killPoints)}`,
    );
  }, SOAK_MS * 4 + 300_000);
});
