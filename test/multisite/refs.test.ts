import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitClient, remoteUrl, startGitRemote } from '../helpers/git.js';
import { createdOn, readsTheSame, ROOT_TOKEN, useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';

const root = { username: 'root', token: ROOT_TOKEN };

/**
 * Protected refs, tags and transfers on a secondary (issue 17, items 2 and 4): a protected branch
 * and tag rows and a tag with its release notes read the same there; a transferred project is
 * served by the secondary's own copy under its new path, and its old path is gone there too. A
 * push mirror created and synced through the secondary lands on the primary, which alone pushes;
 * the secondary lists it the same (issue 26, item 8).
 */
describe('multi-site protected refs, tags and transfers', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;
  let home: string;
  let git: ReturnType<typeof gitClient>;

  useTwoSites({}, (sites) => ({ primary, secondary } = sites));
  beforeAll(async () => {
    home = await mkdtemp(path.join(tmpdir(), 'geoforge-ms-refs-'));
    git = gitClient(home);
  });
  afterAll(async () => {
    if (home) await rm(home, { recursive: true, force: true });
  });

  const sameOnBoth = (apiPath: string, status = 200) => readsTheSame(primary, secondary, apiPath, status);
  const created = (apiPath: string, body: Record<string, unknown>) => createdOn(primary, apiPath, body);
  const registryState = (projectId: number) => {
    const db = new Database(secondary.dbFile, { readonly: true });
    try {
      return (db.prepare("SELECT state FROM geo_registry WHERE item_type = 'repository' AND item_id = ?").get(projectId) as { state: string } | undefined)?.state;
    } finally {
      db.close();
    }
  };
  const infoRefs = async (site: SiteProcess, fullPath: string) => {
    const response = await request(`${site.url}/${fullPath}.git/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Basic ${Buffer.from(`root:${ROOT_TOKEN}`).toString('base64')}` },
    });
    await response.body.arrayBuffer();
    return { status: response.statusCode, node: response.headers['x-geoforge-node'] };
  };

  it('protected branch and tag rows and a tag with its release notes read the same on the secondary', async () => {
    const suffix = randomUUID().slice(0, 8);
    const project = await created('/projects', { name: `refs-${suffix}`, visibility: 'private', initialize_with_readme: true });
    await created(`/projects/${project.id}/protected_branches`, { name: 'release-*', push_access_level: 30, merge_access_level: 40 });
    await created(`/projects/${project.id}/protected_tags`, { name: 'v*', create_access_level: 40 });
    await created(`/projects/${project.id}/repository/tags`, { tag_name: 'v1.0', ref: 'master', message: 'first', release_description: 'notes' });

    const branches = await sameOnBoth(`/projects/${project.id}/protected_branches`);
    expect(branches.body.map((row: any) => [row.name, row.push_access_levels[0].access_level])).toEqual([
      ['master', 40],
      ['release-*', 30],
    ]);
    await sameOnBoth(`/projects/${project.id}/protected_branches/${encodeURIComponent('release-*')}`);
    await sameOnBoth(`/projects/${project.id}/protected_tags`);
    await waitFor(() => registryState(project.id) === 'synced', { timeoutMs: 20_000, message: 'repository synced on the secondary' });
    const tag = await sameOnBoth(`/projects/${project.id}/repository/tags/v1.0`);
    expect(tag.body).toMatchObject({ name: 'v1.0', message: 'first', release: { tag_name: 'v1.0', description: 'notes' }, protected: true });
    const branch = await sameOnBoth(`/projects/${project.id}/repository/branches/master`);
    expect(branch.body).toMatchObject({ protected: true, developers_can_push: false });
  });

  it('a push mirror written through the secondary lands on the primary, which pushes; both list it the same', async () => {
    const suffix = randomUUID().slice(0, 8);
    await git(['init', '-q', '--bare', path.join(home, 'remotes', 'mirror.git')]);
    const remote = await startGitRemote(path.join(home, 'remotes'), { user: 'bot', password: 'Ms-mirror-pw-7' });
    try {
      const project = await created('/projects', { name: `mirrored-${suffix}`, visibility: 'private', initialize_with_readme: true });
      await waitFor(() => registryState(project.id) === 'synced', { timeoutMs: 20_000, message: 'repository synced on the secondary' });
      const mirror = await secondary.api(`/projects/${project.id}/remote_mirrors`, { method: 'POST', body: { url: `${remote.origin.replace('://', '://bot:Ms-mirror-pw-7@')}/mirror.git`, enabled: true } });
      expect(mirror.status, mirror.text).toBe(201);
      expect(mirror.body.url).toBe(`${remote.origin.replace('://', '://*****:*****@')}/mirror.git`);
      const master = (await primary.api(`/projects/${project.id}/repository/branches/master`)).body.commit.id;
      const pushed = async () => (await git(['ls-remote', path.join(home, 'remotes', 'mirror.git'), 'refs/heads/master'])).stdout.startsWith(master);
      await waitFor(pushed, { timeoutMs: 20_000, message: 'the primary pushed the mirror' });
      const since = new Date().toISOString();
      const sync = await secondary.api(`/projects/${project.id}/remote_mirrors/${mirror.body.id}/sync`, { method: 'POST' });
      expect(sync.status, sync.text).toBe(204);
      const state = await waitFor(async () => {
        const listed = await readsTheSame(primary, secondary, `/projects/${project.id}/remote_mirrors`);
        return listed.body[0]?.update_status === 'finished' && listed.body[0]?.last_update_at >= since ? listed.body[0] : null;
      }, { timeoutMs: 20_000, message: 'the synced state on both' });
      expect(state).toMatchObject({ id: mirror.body.id, enabled: true, last_error: null });
      await readsTheSame(primary, secondary, `/projects/${project.id}/remote_mirrors/${mirror.body.id}`);
    } finally {
      await remote.stop();
    }
  });

  it('a transferred project is served by the secondary under its new path, and its old path is gone', async () => {
    const suffix = randomUUID().slice(0, 8);
    const group = await created('/groups', { name: `moved-${suffix}`, path: `moved-${suffix}` });
    const project = await created('/projects', { name: `moving-${suffix}`, visibility: 'private', initialize_with_readme: true });
    await waitFor(() => registryState(project.id) === 'synced', { timeoutMs: 20_000, message: 'repository synced on the secondary' });
    const moved = await primary.api(`/projects/${project.id}/transfer`, { method: 'PUT', body: { namespace: group.full_path } });
    expect(moved.status, moved.text).toBe(200);
    const newPath = moved.body.path_with_namespace as string;
    expect(newPath).toBe(`${group.full_path}/${project.path}`);

    await sameOnBoth(`/projects/${encodeURIComponent(newPath)}`);
    await sameOnBoth(`/projects/${encodeURIComponent(project.path_with_namespace)}`, 404);
    // The repository did not move (hashed storage): the secondary's copy stays current and answers itself.
    await waitFor(async () => (await infoRefs(secondary, newPath)).node === secondary.name, { timeoutMs: 20_000, message: 'secondary serves the new path' });
    expect(registryState(project.id)).toBe('synced');
    expect((await infoRefs(secondary, project.path_with_namespace)).status).toBe(404);
    const clone = path.join(home, 'moved');
    await git(['clone', '--quiet', remoteUrl(secondary.url, { path_with_namespace: newPath }, root), clone]);
    expect(await readFile(path.join(clone, 'README.md'), 'utf8')).toContain(project.name);
  });
});
