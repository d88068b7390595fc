import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repositoryPath } from '../../src/storage/layout.js';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { gitClient, remoteUrl } from '../helpers/git.js';
import { startSite, type TestSite } from '../helpers/site.js';

/** Moving projects and groups, namespace checks, project groups, languages, housekeeping and storage (issue 17, item 4). */
describe('transfers and project housekeeping', () => {
  let site: TestSite;
  let scratch: string;
  let git: ReturnType<typeof gitClient>;
  let owner: TestUser;
  let developer: TestUser;
  let stranger: TestUser;

  const renamedEvents = (projectId: number) =>
    site.site.db.prepare("SELECT count(*) FROM geo_event_log WHERE kind = 'blob' AND table_name = 'repository' AND op = 'renamed' AND row_id = ?").pluck().get(projectId) as number;
  const gitFails = async (args: string[]) => {
    try {
      await git(args);
    } catch (error) {
      return String((error as Error).message);
    }
    throw new Error(`git ${args.join(' ')} succeeded`);
  };

  beforeAll(async () => {
    site = await startSite();
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-transfers-'));
    git = gitClient(scratch);
    [owner, developer, stranger] = await Promise.all([createUser(site), createUser(site), createUser(site)]);
  });
  afterAll(async () => {
    await site.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it('moves a project into a group: only rows change, it clones from its new path, its old path answers 404, a Geo rename event is logged', async () => {
    const group = await createGroup(site, {}, owner.token);
    const project = await createProject(site, { visibility: 'private', initialize_with_readme: true }, owner.token);
    await addMember(site, 'projects', project.id, developer, 30, owner.token);
    const onDisk = repositoryPath(site.dataDir, project.id);
    const before = (await stat(onDisk)).ino;
    const eventsBefore = renamedEvents(project.id);

    const moved = await site.api(`/projects/${project.id}/transfer`, { method: 'PUT', as: owner.token, body: { namespace: group.id } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ id: project.id, path_with_namespace: `${group.full_path}/${project.path}`, namespace: { id: group.id, kind: 'group' } });
    expect((await stat(onDisk)).ino).toBe(before);
    expect(renamedEvents(project.id)).toBe(eventsBefore + 1);

    const clone = path.join(scratch, 'moved-clone');
    await git(['clone', '--quiet', remoteUrl(site.url, moved.body, owner), clone]);
    expect(await readFile(path.join(clone, 'README.md'), 'utf8')).toContain(project.name);
    expect(await gitFails(['ls-remote', remoteUrl(site.url, project, owner)])).toContain('The project you were looking for could not be found.');
    expect((await site.api(`/projects/${encodeURIComponent(project.path_with_namespace)}`, { as: owner.token })).status).toBe(404);
    expect((await site.api(`/projects/${encodeURIComponent(moved.body.path_with_namespace)}`, { as: owner.token })).body.id).toBe(project.id);

    // Back to the owner's own namespace, named by its path.
    const back = await site.api(`/projects/${project.id}/transfer`, { method: 'PUT', as: owner.token, body: { namespace: owner.username } });
    expect(back.status).toBe(200);
    expect(back.body.path_with_namespace).toBe(project.path_with_namespace);
  });

  it('answers the error rows of a project transfer', async () => {
    const group = await createGroup(site, {}, owner.token);
    const project = await createProject(site, { name: 'clash' }, owner.token);
    await addMember(site, 'projects', project.id, developer, 30, owner.token);
    const url = `/projects/${project.id}/transfer`;
    expect((await site.api(url, { method: 'PUT', as: null, body: { namespace: group.id } })).status).toBe(401);
    expect((await site.api(url, { method: 'PUT', as: stranger.token, body: { namespace: group.id } })).status).toBe(404);
    expect((await site.api(url, { method: 'PUT', as: developer.token, body: { namespace: group.id } })).status).toBe(403);
    expect((await site.api(url, { method: 'PUT', as: owner.token, body: {} })).body).toEqual({ message: 'namespace is missing' });
    expect((await site.api(url, { method: 'PUT', as: owner.token, body: { namespace: 999999 } })).body).toEqual({ message: '404 Namespace Not Found' });
    const privateGroup = await createGroup(site, { visibility: 'private' });
    expect((await site.api(url, { method: 'PUT', as: owner.token, body: { namespace: privateGroup.id } })).status).toBe(404);
    const same = await site.api(url, { method: 'PUT', as: owner.token, body: { namespace: project.namespace.id } });
    expect(same.status).toBe(400);
    expect(same.body.message).toBe('Failed to transfer project {:new_namespace=>["Project is already in this namespace."]}');
    await createProject(site, { name: 'clash', namespace_id: group.id }, owner.token);
    const clash = await site.api(url, { method: 'PUT', as: owner.token, body: { namespace: group.id } });
    expect(clash.body.message).toBe('Failed to transfer project {:new_namespace=>["Project with same name or path in target namespace already exists"]}');
    // A group the owner can see but may not create projects in.
    const foreign = await createGroup(site, { visibility: 'public' });
    const denied = await site.api(url, { method: 'PUT', as: owner.token, body: { namespace: foreign.id } });
    expect(denied.status).toBe(400);
    expect(denied.body.message).toBe('Failed to transfer project {:new_namespace=>["Transfer failed, please contact an admin."]}');
  });

  it('moves a group under another parent and back to the top level, rewriting every path below it', async () => {
    const source = await createGroup(site, { visibility: 'public' }, owner.token);
    const child = await createGroup(site, { parent_id: source.id, visibility: 'public' }, owner.token);
    const grandchild = await createGroup(site, { parent_id: child.id, visibility: 'public' }, owner.token);
    const target = await createGroup(site, { visibility: 'internal' }, owner.token);
    const project = await createProject(site, { namespace_id: grandchild.id, visibility: 'public', initialize_with_readme: true }, owner.token);
    const eventsBefore = renamedEvents(project.id);

    const moved = await site.api(`/groups/${child.id}/transfer`, { method: 'POST', as: owner.token, body: { group_id: target.id } });
    expect(moved.status).toBe(201);
    expect(moved.body).toMatchObject({ id: child.id, parent_id: target.id, full_path: `${target.full_path}/${child.path}`, visibility: 'internal' });
    const grand = await site.api(`/groups/${grandchild.id}`, { as: owner.token });
    expect(grand.body).toMatchObject({ full_path: `${target.full_path}/${child.path}/${grandchild.path}`, visibility: 'internal' });
    const movedProject = await site.api(`/projects/${project.id}`, { as: owner.token });
    expect(movedProject.body).toMatchObject({ path_with_namespace: `${target.full_path}/${child.path}/${grandchild.path}/${project.path}`, visibility: 'internal' });
    expect(renamedEvents(project.id)).toBe(eventsBefore + 1);
    await git(['ls-remote', remoteUrl(site.url, movedProject.body, owner)]);
    expect(await gitFails(['ls-remote', remoteUrl(site.url, project, owner)])).toContain('The project you were looking for could not be found.');

    const root = await site.api(`/groups/${child.id}/transfer`, { method: 'PUT', as: owner.token, body: {} });
    expect(root.status).toBe(200);
    expect(root.body).toMatchObject({ parent_id: null, full_path: child.path, full_name: child.name });
    expect((await site.api(`/groups/${grandchild.id}`, { as: owner.token })).body.full_path).toBe(`${child.path}/${grandchild.path}`);
  });

  it('answers the error rows of a group transfer', async () => {
    const parent = await createGroup(site, {}, owner.token);
    const group = await createGroup(site, { parent_id: parent.id }, owner.token);
    const sub = await createGroup(site, { parent_id: group.id }, owner.token);
    const url = `/groups/${group.id}/transfer`;
    const fail = async (body: unknown, as = owner.token) => (await site.api(url, { method: 'POST', as, body })).body.message;
    expect((await site.api(url, { method: 'POST', as: null, body: {} })).status).toBe(401);
    expect((await site.api(url, { method: 'POST', as: developer.token, body: {} })).status).toBe(404);
    await addMember(site, 'groups', group.id, developer, 30, owner.token);
    expect((await site.api(url, { method: 'POST', as: developer.token, body: {} })).status).toBe(403);
    expect(await fail({ group_id: parent.id })).toBe('Transfer failed: Group is already associated to the parent group.');
    expect(await fail({ group_id: sub.id })).toBe('Transfer failed: Cannot transfer group to one of its subgroup.');
    expect(await fail({ group_id: group.id })).toBe('Transfer failed: Cannot transfer group to one of its subgroup.');
    expect((await site.api(url, { method: 'POST', as: owner.token, body: { group_id: 999999 } })).body).toEqual({ message: '404 Group Not Found' });
    expect((await site.api(url, { method: 'POST', as: owner.token, body: { group_id: 'x' } })).status).toBe(400);
    const foreign = await createGroup(site, { visibility: 'public' });
    expect(await fail({ group_id: foreign.id })).toBe("Transfer failed: You don't have enough permissions.");
    const other = await createGroup(site, {}, owner.token);
    await createGroup(site, { parent_id: other.id, path: group.path }, owner.token);
    expect(await fail({ group_id: other.id })).toBe('Transfer failed: The parent group already has a subgroup or a project with the same path.');
    const named = await createGroup(site, {}, owner.token);
    await createGroup(site, { parent_id: named.id, name: group.name, path: `other-${group.path}` }, owner.token);
    expect(await fail({ group_id: named.id })).toBe('Transfer failed: Validation failed: Name has already been taken');
    const top = await createGroup(site, {}, owner.token);
    expect((await site.api(`/groups/${top.id}/transfer`, { method: 'POST', as: owner.token, body: {} })).body.message).toBe('Transfer failed: Group is already a root group.');
  });

  it('tells whether a namespace path exists, with a suggestion, at the top level or below a parent', async () => {
    const group = await createGroup(site, {}, owner.token);
    const taken = await site.api(`/namespaces/${group.path}/exists`, { as: developer.token });
    expect(taken.status).toBe(200);
    expect(taken.body).toEqual({ exists: true, suggests: [`${group.path}1`] });
    expect((await site.api(`/namespaces/${owner.username}/exists`, { as: developer.token })).body.exists).toBe(true);
    expect((await site.api('/namespaces/surely-free-path/exists', { as: developer.token })).body).toEqual({ exists: false, suggests: [] });
    const sub = await createGroup(site, { parent_id: group.id }, owner.token);
    expect((await site.api(`/namespaces/${sub.path}/exists`, { as: developer.token })).body.exists).toBe(false);
    expect((await site.api(`/namespaces/${sub.path}/exists?parent_id=${group.id}`, { as: developer.token })).body.exists).toBe(true);
    expect((await site.api(`/namespaces/${group.path}/exists`, { as: null })).status).toBe(401);
    expect((await site.api(`/namespaces/${group.path}/exists?parent_id=x`, { as: developer.token })).status).toBe(400);
  });

  it('lists descendant groups at any depth, as the caller may see them', async () => {
    const top = await createGroup(site, { visibility: 'public' }, owner.token);
    const a = await createGroup(site, { parent_id: top.id, visibility: 'public' }, owner.token);
    const b = await createGroup(site, { parent_id: a.id, visibility: 'public' }, owner.token);
    const hidden = await createGroup(site, { parent_id: a.id, visibility: 'private' }, owner.token);
    const all = await site.api(`/groups/${top.id}/descendant_groups`, { as: owner.token });
    expect(all.body.map((g: any) => g.id).sort()).toEqual([a.id, b.id, hidden.id].sort());
    expect(all.headers['x-total']).toBe('3');
    const seen = await site.api(`/groups/${top.id}/descendant_groups`, { as: stranger.token });
    expect(seen.body.map((g: any) => g.id).sort()).toEqual([a.id, b.id].sort());
    expect((await site.api(`/groups/${top.id}/descendant_groups?search=${encodeURIComponent(b.name)}`, { as: owner.token })).body.map((g: any) => g.id)).toEqual([b.id]);
    expect((await site.api(`/groups/${hidden.id}/descendant_groups`, { as: stranger.token })).status).toBe(404);
  });

  it("lists a project's groups: its group and ancestors, and with with_shared its shares", async () => {
    const top = await createGroup(site, {}, owner.token);
    const sub = await createGroup(site, { parent_id: top.id }, owner.token);
    const shared = await createGroup(site, {}, owner.token);
    const project = await createProject(site, { namespace_id: sub.id }, owner.token);
    expect((await site.api(`/projects/${project.id}/share`, { method: 'POST', as: owner.token, body: { group_id: shared.id, group_access: 30 } })).status).toBe(201);
    const plain = await site.api(`/projects/${project.id}/groups`, { as: owner.token });
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual([
      { id: top.id, name: top.name, web_url: expect.stringContaining(`/groups/${top.full_path}`), avatar_url: null, full_name: top.full_name, full_path: top.full_path },
      expect.objectContaining({ id: sub.id, full_path: sub.full_path }),
    ]);
    expect((await site.api(`/projects/${project.id}/groups?with_shared=true`, { as: owner.token })).body.map((g: any) => g.id)).toEqual([top.id, sub.id, shared.id]);
    expect((await site.api(`/projects/${project.id}/groups?with_shared=true&shared_min_access_level=40`, { as: owner.token })).body.map((g: any) => g.id)).toEqual([top.id, sub.id]);
    expect((await site.api(`/projects/${project.id}/groups?skip_groups[]=${top.id}`, { as: owner.token })).body.map((g: any) => g.id)).toEqual([sub.id]);
    expect((await site.api(`/projects/${project.id}/groups`, { as: stranger.token })).status).toBe(404);
  });

  it('computes languages from the default branch, housekeeps with git gc (409 while it runs) and shows storage to admins', async () => {
    const project = await createProject(site, { visibility: 'private' }, owner.token);
    await addMember(site, 'projects', project.id, developer, 30, owner.token);
    expect((await site.api(`/projects/${project.id}/languages`, { as: owner.token })).body).toEqual({});
    const actions = [
      { action: 'create', file_path: 'src/main.ts', content: 'x'.repeat(600) },
      { action: 'create', file_path: 'tool.py', content: 'y'.repeat(300) },
      { action: 'create', file_path: 'page.html', content: 'z'.repeat(100) },
      { action: 'create', file_path: 'README.md', content: 'r'.repeat(5000) },
      { action: 'create', file_path: 'vendor/lib.js', content: 'v'.repeat(5000) },
    ];
    expect((await site.api(`/projects/${project.id}/repository/commits`, { method: 'POST', as: owner.token, body: { branch: 'master', commit_message: 'code', actions } })).status).toBe(201);
    const languages = await site.api(`/projects/${project.id}/languages`, { as: developer.token });
    expect(languages.status).toBe(200);
    expect(languages.body).toEqual({ TypeScript: 60, Python: 30, HTML: 10 });
    expect(Object.keys(languages.body)).toEqual(['TypeScript', 'Python', 'HTML']);
    expect((await site.api(`/projects/${project.id}/languages`, { as: stranger.token })).status).toBe(404);

    const url = `/projects/${project.id}/housekeeping`;
    expect((await site.api(url, { method: 'POST', as: null })).status).toBe(401);
    expect((await site.api(url, { method: 'POST', as: developer.token })).status).toBe(403);
    const [first, second] = await Promise.all([site.api(url, { method: 'POST', as: owner.token }), site.api(url, { method: 'POST', as: owner.token })]);
    expect([first.status, second.status].sort()).toEqual([201, 409]);
    expect([first, second].find((r) => r.status === 409)!.body.message).toContain('housekeeping');
    const packs = path.join(repositoryPath(site.dataDir, project.id), 'objects', 'info', 'packs');
    const deadline = Date.now() + 15_000;
    while (!(await stat(packs).catch(() => null)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await readFile(packs, 'utf8')).trim()).toMatch(/^P pack-/);

    const storage = await site.api(`/projects/${project.id}/storage`);
    expect(storage.status).toBe(200);
    expect(storage.body).toMatchObject({ project_id: project.id, repository_storage: 'default', created_at: project.created_at });
    expect(path.join(site.dataDir, 'repositories', `${storage.body.disk_path}.git`)).toBe(repositoryPath(site.dataDir, project.id));
    expect((await site.api(`/projects/${project.id}/storage`, { as: owner.token })).status).toBe(403);
    expect((await site.api(`/projects/${project.id}/storage`, { as: null })).status).toBe(401);
  });
});
