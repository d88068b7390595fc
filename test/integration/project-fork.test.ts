import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGit } from '../../src/git/cli.js';
import { repositoryPath, stagingRepositoryPath } from '../../src/storage/layout.js';
import { createLogger } from '../../src/observability/logger.js';
import { ProjectImportWorker } from '../../src/services/projects/import.js';
import { createGroup, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { waitFor } from '../helpers/multisite.js';
import { startSite, type TestSite } from '../helpers/site.js';

const idsOf = (body: { id: number }[]) => body.map((row) => row.id);

describe('project forks and imports', () => {
  let site: TestSite;
  let scratch: string;
  let owner: TestUser;
  let forker: TestUser;
  let stranger: TestUser;
  let source: any;
  let sourceRefs: string;
  let dumbHttp: { server: Server; url: string; root: string };

  const gitEnv = () => ({
    HOME: scratch,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  });

  /** Two branches and a tag, pushed into the bare repository over a file:// remote from a temp clone. */
  const pushHistory = async (bare: string) => {
    const work = await mkdtemp(path.join(scratch, 'work-'));
    const env = gitEnv();
    await runGit(['init', '--quiet', '--initial-branch=master', work], { env });
    await writeFile(path.join(work, 'README.md'), '# upstream\n');
    await runGit(['add', '.'], { cwd: work, env });
    await runGit(['commit', '--quiet', '-m', 'first'], { cwd: work, env });
    await runGit(['tag', '-a', 'v1.0', '-m', 'release'], { cwd: work, env });
    await runGit(['checkout', '--quiet', '-b', 'feature'], { cwd: work, env });
    await writeFile(path.join(work, 'feature.txt'), 'feature\n');
    await runGit(['add', '.'], { cwd: work, env });
    await runGit(['commit', '--quiet', '-m', 'feature work'], { cwd: work, env });
    await runGit(['push', '--quiet', `file://${bare}`, 'refs/heads/master:refs/heads/master', 'refs/heads/feature:refs/heads/feature', 'refs/tags/v1.0:refs/tags/v1.0'], {
      cwd: work,
      env,
    });
  };

  const refsOf = async (bare: string) => (await runGit(['--git-dir', bare, 'for-each-ref', '--format=%(objectname) %(objecttype) %(refname)'])).stdout;

  const fork = (id: number, body: object, as: string | null) => site.api(`/projects/${id}/fork`, { method: 'POST', body, as });

  /** Polls the project as root until its import settles; never a fixed sleep. */
  const settled = (id: number) =>
    waitFor(
      async () => {
        const response = await site.api(`/projects/${id}`);
        return ['finished', 'failed'].includes(response.body.import_status) ? response.body : null;
      },
      { timeoutMs: 20_000, message: `import of project ${id}` },
    );

  beforeAll(async () => {
    site = await startSite();
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-fork-'));
    owner = await createUser(site);
    forker = await createUser(site);
    stranger = await createUser(site);
    source = await createProject(site, { name: 'Upstream Work', description: 'the original', visibility: 'internal', default_branch: 'master', wiki_enabled: false }, owner.token);
    const bare = repositoryPath(site.dataDir, source.id);
    await pushHistory(bare);
    sourceRefs = await refsOf(bare);

    // A dumb-HTTP git server: a bare repository after update-server-info, served as static files.
    const root = path.join(scratch, 'served');
    await runGit(['clone', '--bare', '--quiet', bare, path.join(root, 'remote.git')], { env: gitEnv() });
    await runGit(['--git-dir', path.join(root, 'remote.git'), 'update-server-info']);
    const server = createServer(async (req, res) => {
      const file = path.join(root, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
      const info = file.startsWith(root + path.sep) ? await stat(file).catch(() => null) : null;
      if (!info?.isFile()) {
        res.writeHead(404).end('not found');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(await readFile(file));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    dumbHttp = { server, root, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  });
  afterAll(async () => {
    await site.stop();
    dumbHttp.server.close();
    await rm(scratch, { recursive: true, force: true });
  });

  describe('POST /projects/:id/fork', () => {
    it("forks into the caller's namespace, copying the repository in the background", async () => {
      const response = await fork(source.id, {}, forker.token);
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({
        name: source.name,
        path: source.path,
        description: 'the original',
        visibility: 'internal',
        default_branch: 'master',
        wiki_enabled: false,
        creator_id: forker.id,
        import_status: 'scheduled',
        namespace: { kind: 'user', path: forker.username },
        forked_from_project: { id: source.id, path_with_namespace: source.path_with_namespace },
      });
      expect(response.body.permissions).toBeUndefined();
      expect(response.body.forked_from_project.permissions).toBeUndefined();

      const done = await settled(response.body.id);
      expect(done).toMatchObject({ import_status: 'finished', import_error: null });
      const forkRepository = repositoryPath(site.dataDir, response.body.id);
      expect(await refsOf(forkRepository)).toBe(sourceRefs);
      expect(sourceRefs).toMatch(/ commit refs\/heads\/feature\n/);
      expect(sourceRefs).toMatch(/ tag refs\/tags\/v1\.0\n/);
      expect((await readFile(path.join(forkRepository, 'HEAD'), 'utf8')).trim()).toBe('ref: refs/heads/master');
      // The fork keeps no remote pointing back at the source's path, and no staging directory is left.
      expect(await readFile(path.join(forkRepository, 'config'), 'utf8')).not.toContain('remote');
      expect(existsSync(stagingRepositoryPath(site.dataDir, response.body.id))).toBe(false);

      // The forker is a maintainer of the fork and sees import_error; the source owner is not a member.
      const members = await site.api(`/projects/${response.body.id}/members`, { as: forker.token });
      expect(members.body).toEqual([expect.objectContaining({ id: forker.id, access_level: 40 })]);
      expect((await site.api(`/projects/${response.body.id}`, { as: forker.token })).body).toHaveProperty('import_error', null);
      expect((await site.api(`/projects/${response.body.id}`, { as: owner.token })).body).not.toHaveProperty('import_error');
    });

    it('forks into a group by path or id, capping visibility at the group', async () => {
      const publicSource = await createProject(site, { name: 'Open Upstream', visibility: 'public' }, owner.token);
      await pushHistory(repositoryPath(site.dataDir, publicSource.id));
      const team = await createGroup(site, { visibility: 'internal' }, forker.token);
      const other = await createGroup(site, { visibility: 'public' }, forker.token);

      const byPath = await fork(publicSource.id, { namespace: team.full_path }, forker.token);
      expect(byPath).toMatchObject({ status: 201, body: { visibility: 'internal', namespace: { id: team.id, kind: 'group' }, import_status: 'scheduled' } });
      const byId = await fork(publicSource.id, { namespace: other.id }, forker.token);
      expect(byId).toMatchObject({ status: 201, body: { visibility: 'public', namespace: { id: other.id } } });

      for (const forked of [byPath.body, byId.body]) {
        expect(await settled(forked.id)).toMatchObject({ import_status: 'finished', forked_from_project: { id: publicSource.id } });
        expect(await refsOf(repositoryPath(site.dataDir, forked.id))).toBe(await refsOf(repositoryPath(site.dataDir, publicSource.id)));
      }
      // Group projects get access through the group: no project member is added.
      expect((await site.api(`/projects/${byPath.body.id}/members`, { as: forker.token })).body).toEqual([]);

      // The forks list shows the forks the caller can see; forks_count counts them all.
      expect(idsOf((await site.api(`/projects/${publicSource.id}/forks`, { as: forker.token })).body).sort()).toEqual([byPath.body.id, byId.body.id].sort());
      expect(idsOf((await site.api(`/projects/${publicSource.id}/forks`, { as: null })).body)).toEqual([byId.body.id]);
      expect((await site.api(`/projects/${publicSource.id}`)).body.forks_count).toBe(2);
      expect((await site.api(`/projects/${byId.body.id}`)).body.forked_from_project).toMatchObject({ id: publicSource.id, forks_count: 2 });
    });

    it('answers 404 Target Namespace for a missing namespace or one the caller may not create projects in', async () => {
      const notFound = { status: 404, body: { message: '404 Target Namespace Not Found' } };
      expect(await fork(source.id, { namespace: 'no/such/namespace' }, forker.token)).toMatchObject(notFound);
      expect(await fork(source.id, { namespace: 999999 }, forker.token)).toMatchObject(notFound);
      // Someone else's user namespace, and a group where the caller is only a developer.
      expect(await fork(source.id, { namespace: owner.username }, forker.token)).toMatchObject(notFound);
      const team = await createGroup(site, {}, owner.token);
      await site.api(`/groups/${team.id}/members`, { method: 'POST', body: { user_id: forker.id, access_level: 30 }, as: owner.token });
      expect(await fork(source.id, { namespace: team.id }, forker.token)).toMatchObject(notFound);
      const privateGroup = await createGroup(site, { visibility: 'private' }, owner.token);
      expect(await fork(source.id, { namespace: privateGroup.full_path }, forker.token)).toMatchObject(notFound);
    });

    it('answers 409 with the errors hash when the name or path is taken in the target', async () => {
      const team = await createGroup(site, {}, owner.token);
      await createProject(site, { name: source.name, path: source.path, namespace_id: team.id }, owner.token);
      const response = await fork(source.id, { namespace: team.id }, owner.token);
      expect(response).toMatchObject({ status: 409, body: { message: { name: ['has already been taken'], path: ['has already been taken'] } } });
      // Forking into the source's own namespace collides the same way.
      expect(await fork(source.id, {}, owner.token)).toMatchObject({ status: 409, body: { message: { path: ['has already been taken'] } } });
    });

    it('needs a signed-in caller who can see the source', async () => {
      expect(await fork(source.id, {}, null)).toMatchObject({ status: 401 });
      const secret = await createProject(site, { name: 'Secret Upstream' }, owner.token);
      expect(await fork(secret.id, {}, stranger.token)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
      // A guest of a private project sees it but may not copy its code.
      await site.api(`/projects/${secret.id}/members`, { method: 'POST', body: { user_id: stranger.id, access_level: 10 }, as: owner.token });
      expect((await fork(secret.id, {}, stranger.token)).status).toBe(403);
    });

    it("fails the fork when the source's repository cannot be read, keeping git's text in import_error", async () => {
      const doomed = await createProject(site, { name: 'Short Lived', visibility: 'internal' }, owner.token);
      await rm(repositoryPath(site.dataDir, doomed.id), { recursive: true, force: true });
      const response = await fork(doomed.id, {}, forker.token);
      expect(response.status).toBe(201);
      const failed = await settled(response.body.id);
      expect(failed.import_status).toBe('failed');
      // git's own text, naming the source by its project path rather than where it lives on disk.
      expect(failed.import_error).toBe(`fatal: repository '${doomed.path_with_namespace}' does not exist`);
      expect(existsSync(repositoryPath(site.dataDir, response.body.id))).toBe(false);
      expect(existsSync(stagingRepositoryPath(site.dataDir, response.body.id))).toBe(false);
    });
  });

  describe('resuming after a crash', () => {
    it('resumes imports left scheduled or started, clearing a half-written staging directory', async () => {
      const response = await fork(source.id, { namespace: stranger.username }, stranger.token);
      await settled(response.body.id);
      // As a crash mid-clone leaves it: the row `started`, junk in staging, nothing at the final path.
      const id = response.body.id;
      await rm(repositoryPath(site.dataDir, id), { recursive: true, force: true });
      await mkdir(stagingRepositoryPath(site.dataDir, id), { recursive: true });
      await writeFile(path.join(stagingRepositoryPath(site.dataDir, id), 'HEAD'), 'garbage');
      site.site.db.prepare("UPDATE projects SET import_status = 'started' WHERE id = ?").run(id);

      const worker = new ProjectImportWorker({ role: 'primary', db: () => site.site.db, dataDir: site.dataDir, log: createLogger('silent'), allowLocalRequests: () => true });
      worker.start();
      try {
        expect(await settled(id)).toMatchObject({ import_status: 'finished' });
        expect(await refsOf(repositoryPath(site.dataDir, id))).toBe(sourceRefs);
        expect(existsSync(stagingRepositoryPath(site.dataDir, id))).toBe(false);
      } finally {
        await worker.stop();
      }
      // A secondary never runs imports.
      const secondary = new ProjectImportWorker({ role: 'secondary', db: () => site.site.db, dataDir: site.dataDir, log: createLogger('silent'), allowLocalRequests: () => true });
      expect(secondary.runs).toBe(false);
    });
  });

  describe('POST /projects with import_url', () => {
    it('clones the URL over dumb HTTP in the background', async () => {
      const created = await createProject(site, { name: 'Imported', import_url: `${dumbHttp.url}/remote.git` }, owner.token);
      expect(created).toMatchObject({ import_status: 'scheduled' });
      const done = await settled(created.id);
      expect(done).toMatchObject({ import_status: 'finished', import_error: null, default_branch: 'master' });
      const imported = repositoryPath(site.dataDir, created.id);
      expect(await refsOf(imported)).toBe(sourceRefs);
      // The URL (which may carry credentials) is not kept in the repository's config.
      expect(await readFile(path.join(imported, 'config'), 'utf8')).not.toContain('127.0.0.1');
    });

    it('marks the import failed with git\'s own error text', async () => {
      const created = await createProject(site, { name: 'Not There', import_url: `${dumbHttp.url}/missing.git` }, owner.token);
      const failed = await settled(created.id);
      expect(failed.import_status).toBe('failed');
      expect(failed.import_error).toMatch(/missing\.git.*not found/);
      expect(existsSync(repositoryPath(site.dataDir, created.id))).toBe(false);

      const credentials = await createProject(site, { name: 'Unreachable', import_url: 'http://someone:hunter2@127.0.0.1:1/x.git' }, owner.token);
      const unreachable = await settled(credentials.id);
      expect(unreachable.import_status).toBe('failed');
      expect(unreachable.import_error).toMatch(/Failed to connect|Could not connect|Connection refused/i);
      expect(unreachable.import_error).not.toContain('hunter2');
    });

    it('accepts http and https URLs only', async () => {
      for (const url of ['file:///etc', '/srv/repo.git', 'ssh://git@example.com/x.git', 'ext::sh -c touch% /tmp/pwned']) {
        const response = await site.api('/projects', { method: 'POST', body: { name: `Blocked ${Math.random().toString(36).slice(2)}`, import_url: url }, as: owner.token });
        expect(response.status, url).toBe(400);
        expect(response.body.message.import_url, url).toEqual([expect.stringMatching(/^is blocked/)]);
      }
    });
  });
});
