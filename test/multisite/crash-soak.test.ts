import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refsChecksum } from '../../src/geo/repository-checksum.js';
import { lfsObjectPath, repositoryPath, uploadFilePath, wikiRepositoryPath } from '../../src/storage/layout.js';
import { FAST_SYNC_ENV, postFile, registryOf } from '../helpers/geo-blobs.js';
import { gitClient, remoteUrl } from '../helpers/git.js';
import { readState, ROOT_TOKEN, startCluster, waitFor, type SiteProcess } from '../helpers/multisite.js';

/**
 * Issue 20, item 4: a crash soak. Mixed writes of every family through the API, git pushes over
 * smart HTTP and LFS uploads on a primary with two secondaries, while sites are SIGKILLed at
 * seeded random points (a secondary mid-snapshot, mid-transfer, mid-push sync; the primary
 * mid-push and mid-merge). Afterwards every site converges table by table and repository by
 * repository, and every write answered 2xx is found on the primary and on each secondary.
 *
 * GEOFORGE_SOAK_SECONDS (default 60) bounds the run, GEOFORGE_SOAK_KILLS (default 20) is the
 * fewest kills it must survive, GEOFORGE_SOAK_SEED replays a run (the seed is logged).
 */
const SOAK_MS = Number(process.env.GEOFORGE_SOAK_SECONDS ?? 60) * 1000;
const MIN_KILLS = Number(process.env.GEOFORGE_SOAK_KILLS ?? 20);
const SEED = Number(process.env.GEOFORGE_SOAK_SEED ?? Math.floor(Math.random() * 2 ** 31));
const WORKERS = 3;

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
  let cluster: Awaited<ReturnType<typeof startCluster>>;
  let primary: SiteProcess;
  let secondaries: SiteProcess[];
  let work: string;
  const git = () => gitClient(path.join(work, 'home'), 60_000);

  beforeAll(async () => {
    cluster = await startCluster(2, { secondaryEnv: FAST_SYNC_ENV });
    ({ primary, secondaries } = cluster);
    work = await mkdtemp(path.join(tmpdir(), 'geoforge-soak-'));
  }, 60_000);
  afterAll(async () => {
    await cluster?.destroy();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it(`survives at least ${MIN_KILLS} kills, losing no acknowledged write, and every site converges`, async () => {
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
    const started = Date.now();

    /** A write that may meet a dead primary: null unless answered 2xx. */
    const write = async (apiPath: string, body: unknown, method = 'POST') => {
      const response = await primary.api(apiPath, { method, body }).catch(() => null);
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
          await run(['clone', '--quiet', remoteUrl(primary.url, project, ROOT), clone]);
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
      const response = await request(`${primary.url}/${project.path_with_namespace}.git/gitlab-lfs/objects/${oid}/${content.length}`, {
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
      const body = await postFile(primary, `/projects/${project.id}/uploads`, name, content).catch(() => null);
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
      if (Date.now() - started > SOAK_MS * 3) break;
    }
    stopping = true;
    await Promise.all(workers);
    const soakMs = Date.now() - started;
    expect(kills.length).toBeGreaterThanOrEqual(MIN_KILLS);

    // Convergence: each secondary at the primary's newest event with every replicated table equal (a digest per table).
    const convergeStarted = Date.now();
    let rowsCompared = 0;
    let tablesCompared = 0;
    for (const site of secondaries) {
      await waitFor(
        () => {
          const want = readState(primary);
          const got = readState(site);
          if (got.position !== want.position) throw new Error(`${site.name} cursor ${got.position}, primary at ${want.position}`);
          expect(Object.keys(got.tables)).toEqual(Object.keys(want.tables));
          const digest = (rows: unknown[][]) => sha256(JSON.stringify(rows));
          for (const table of Object.keys(want.tables)) expect(digest(got.tables[table]), `${site.name}: table ${table}`).toBe(digest(want.tables[table]));
          rowsCompared += Object.values(want.tables).reduce((sum, rows) => sum + rows.length, 0);
          tablesCompared += Object.keys(want.tables).length;
          return true;
        },
        { timeoutMs: 60_000, message: `${site.name} converged table by table` },
      );
    }
    // Repository by repository: the refs (and HEAD) of every repository and wiki.
    const db = primary.openReadOnly();
    const projectIds = db.prepare('SELECT id FROM projects ORDER BY id').pluck().all() as number[];
    db.close();
    let repositoriesCompared = 0;
    for (const site of secondaries) {
      for (const id of projectIds) {
        for (const where of [repositoryPath, wikiRepositoryPath]) {
          const want = await refsChecksum(where(primary.dataDir, id));
          if (want === null) continue;
          await waitFor(async () => (await refsChecksum(where(site.dataDir, id))) === want, { timeoutMs: 60_000, message: `${site.name}: refs of ${path.basename(where(site.dataDir, id))}` }).catch(
            async (error: Error) => {
              // What the secondary believes of it, and both sides' refs: the report a divergence needs.
              const refs = async (dir: string) => (await git()(['for-each-ref', '--format=%(objectname) %(refname)'], dir).catch((failure: Error) => ({ stdout: failure.message }))).stdout;
              const rows = registryOf(site).filter((row) => row.path === path.relative(primary.dataDir, where(primary.dataDir, id)));
              error.message += `\nregistry: ${JSON.stringify(rows)}\nprimary refs:\n${await refs(where(primary.dataDir, id))}\n${site.name} refs:\n${await refs(where(site.dataDir, id))}\n${site.name} log:\n${site.output.slice(-6000)}`;
              throw error;
            },
          );
          repositoriesCompared++;
        }
      }
    }
    const convergeMs = Date.now() - convergeStarted;

    // No acknowledged write lost: each found on the primary and, served locally, on each secondary.
    let filesCompared = 0;
    for (const site of [primary, ...secondaries]) {
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
          const content = await waitFor(() => readFile(file), { timeoutMs: site === primary ? 0 : 30_000, message: `${site.name}: ${file}` });
          expect(sha256(content), file).toBe(entry.sha256);
          filesCompared++;
        }
      }
    }
    const byKind: Record<string, number> = {};
    for (const entry of ledger) {
      const kind = entry.kind === 'file' ? entry.what : entry.kind;
      byKind[kind] = (byKind[kind] ?? 0) + 1;
    }
    console.info(
      `crash soak (seed ${SEED}): ${kills.length} kills survived in ${soakMs} ms (${kills.filter((kill) => kill.startsWith('primary')).length} of the primary); ` +
        `${ledger.length} acknowledged writes checked on 3 sites (${JSON.stringify(byKind)}); refused or unanswered: ${JSON.stringify(refused)} (${samples.join(" | ")}); ` +
        `${rowsCompared} rows in ${tablesCompared} table digests, ${repositoriesCompared} repositories and ${filesCompared} files compared; converged in ${convergeMs} ms; ` +
        `kills: ${JSON.stringify(kills.reduce<Record<string, number>>((count, kill) => ({ ...count, [kill]: (count[kill] ?? 0) + 1 }), {}))}`,
    );
  }, SOAK_MS * 4 + 180_000);
});
