import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGit } from '../../src/git/cli.js';
import { repositoryPath } from '../../src/storage/layout.js';
import { addMember, createGroup, createProject, createUser, type TestGroup, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

const BASIC_KEYS = [
  'avatar_url',
  'created_at',
  'default_branch',
  'description',
  'forks_count',
  'http_url_to_repo',
  'id',
  'last_activity_at',
  'name',
  'name_with_namespace',
  'path',
  'path_with_namespace',
  'ssh_url_to_repo',
  'star_count',
  'tag_list',
  'topics',
  'web_url',
];

const idsOf = (body: { id: number }[]) => body.map((project) => project.id);

describe('projects', () => {
  let site: TestSite;
  let owner: TestUser;
  let developer: TestUser;
  let stranger: TestUser;
  let external: TestUser;
  let group: TestGroup;
  let privateProject: any;
  let internalProject: any;
  let publicProject: any;

  beforeAll(async () => {
    site = await startSite();
    owner = await createUser(site);
    developer = await createUser(site);
    stranger = await createUser(site);
    external = await createUser(site, { external: true });
    group = await createGroup(site, { visibility: 'public' }, owner.token);
    privateProject = await createProject(site, { name: 'Secret Sauce', description: 'recipes' }, owner.token);
    internalProject = await createProject(site, { name: 'Inside Job', visibility: 'internal' }, owner.token);
    publicProject = await createProject(site, { name: 'Open Book', visibility: 'public' }, owner.token);
    await addMember(site, 'projects', privateProject.id, developer, 30, owner.token);
  });
  afterAll(() => site.stop());

  describe('POST /projects', () => {
    it('starts the repository with a README on the default branch when initialize_with_readme is set', async () => {
      const created = await site.api('/projects', { method: 'POST', body: { name: 'with-readme', initialize_with_readme: true, default_branch: 'main' }, as: owner.token });
      expect(created.status).toBe(201);
      const branches = await site.api(`/projects/${created.body.id}/repository/branches`, { as: owner.token });
      expect(branches.body.map((branch: { name: string }) => branch.name)).toEqual(['main']);
      const readme = await site.api(`/projects/${created.body.id}/repository/files/README.md/raw?ref=main`, { as: owner.token });
      expect(readme.text).toBe('# with-readme\n');
      const plain = await site.api('/projects', { method: 'POST', body: { name: 'without-readme', initialize_with_readme: false }, as: owner.token });
      expect((await site.api(`/projects/${plain.body.id}/repository/branches`, { as: owner.token })).body).toEqual([]);
    });

    it('creates a project in the caller namespace with GitLab defaults and a bare repository', async () => {
      const response = await site.api('/projects', { method: 'POST', body: { name: 'My Fancy_Project.v2' }, as: owner.token });
      expect(response.status).toBe(201);
      expect(response.headers['content-type']).toBe('application/json');
      const project = response.body;
      expect(project).toMatchObject({
        name: 'My Fancy_Project.v2',
        path: 'my-fancy_project-v2',
        path_with_namespace: `${owner.username}/my-fancy_project-v2`,
        default_branch: 'master',
        visibility: 'private',
        archived: false,
        issues_enabled: true,
        merge_requests_enabled: true,
        wiki_enabled: true,
        jobs_enabled: true,
        snippets_enabled: true,
        container_registry_enabled: true,
        shared_runners_enabled: true,
        lfs_enabled: true,
        request_access_enabled: false,
        public_jobs: true,
        only_allow_merge_if_pipeline_succeeds: false,
        only_allow_merge_if_all_discussions_are_resolved: false,
        resolve_outdated_diff_discussions: false,
        printing_merge_request_link_enabled: true,
        approvals_before_merge: 0,
        import_status: 'none',
        import_error: null,
        creator_id: owner.id,
        star_count: 0,
        forks_count: 0,
        open_issues_count: 0,
        tag_list: [],
        shared_with_groups: [],
        ci_config_path: null,
        repository_storage: 'default',
        owner: { id: owner.id, username: owner.username },
        namespace: { kind: 'user', path: owner.username, full_path: owner.username, parent_id: null },
        http_url_to_repo: `${site.url}/${owner.username}/my-fancy_project-v2.git`,
        ssh_url_to_repo: `git@127.0.0.1:${owner.username}/my-fancy_project-v2.git`,
        web_url: `${site.url}/${owner.username}/my-fancy_project-v2`,
        _links: { self: `${site.url}/api/v4/projects/${project.id}`, issues: `${site.url}/api/v4/projects/${project.id}/issues` },
      });
      expect(project.name_with_namespace).toMatch(/^User .+ \/ My Fancy_Project\.v2$/);
      expect(project.runners_token).toEqual(expect.any(String));
      expect(project.permissions).toBeUndefined();

      const repository = repositoryPath(site.dataDir, project.id);
      expect(repository).toMatch(/repositories\/@hashed\/[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{64}\.git$/);
      expect((await readFile(path.join(repository, 'HEAD'), 'utf8')).trim()).toBe('ref: refs/heads/master');
      // The creator is a maintainer member of a project in their own namespace.
      const members = await site.api(`/projects/${project.id}/members`, { as: owner.token });
      expect(members.body).toEqual([expect.objectContaining({ id: owner.id, access_level: 40 })]);
    });

    it('takes every create parameter, in the query string as python-gitlab sends them', async () => {
      const query = 'path=from-path-only&default_branch=main&issues_enabled=False&merge_requests_enabled=false&visibility=internal&description=d' +
        '&tag_list[]=b&tag_list[]=a&approvals_before_merge=2&ci_config_path=ci.yml&wiki_enabled=0';
      const response = await site.api(`/projects?${query}`, { method: 'POST', body: {}, as: owner.token });
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({
        name: 'from-path-only',
        path: 'from-path-only',
        default_branch: 'main',
        issues_enabled: false,
        merge_requests_enabled: false,
        wiki_enabled: false,
        visibility: 'internal',
        description: 'd',
        tag_list: ['a', 'b'],
        approvals_before_merge: 2,
        ci_config_path: 'ci.yml',
        import_status: 'none',
      });
      expect(response.body.open_issues_count).toBeUndefined();
      expect(response.body._links.issues).toBeUndefined();
      expect(response.body._links.merge_requests).toBeUndefined();
      expect((await readFile(path.join(repositoryPath(site.dataDir, response.body.id), 'HEAD'), 'utf8')).trim()).toBe('ref: refs/heads/main');
    });

    it('validates names and paths', async () => {
      const post = (body: object, as: string | null = owner.token) => site.api('/projects', { method: 'POST', body, as });
      const asAdmin = (body: object) => site.api('/projects', { method: 'POST', body });
      expect(await post({})).toMatchObject({ status: 400, body: { message: 'name, path are missing, at least one parameter must be provided' } });
      expect(await post({ name: 'Secret Sauce' })).toMatchObject({
        status: 400,
        body: { message: { name: ['has already been taken'], path: ['has already been taken'] } },
      });
      expect(await post({ name: 'Other', path: 'SECRET-SAUCE' })).toMatchObject({ status: 400, body: { message: { path: ['has already been taken'] } } });
      expect((await post({ name: 'x', path: '-bad' })).body.message.path[0]).toMatch(/can contain only letters/);
      expect((await post({ name: 'x', path: 'repo.git' })).body.message.path[0]).toMatch(/end in '.git'/);
      expect(await post({ name: 'x', path: 'tree' })).toMatchObject({ status: 400, body: { message: { path: ['tree is a reserved name'] } } });
      expect((await post({ name: '-dash first' })).body.message.name[0]).toMatch(/It must start with/);
      expect(await post({ name: 'x', visibility: 'secret' })).toMatchObject({ status: 400, body: { message: 'visibility does not have a valid value' } });
      expect(await post({ name: 'x', default_branch: 'bad..branch' })).toMatchObject({ status: 400, body: { message: { default_branch: ['is invalid'] } } });
      expect(await post({ name: 'x' }, null)).toMatchObject({ status: 401 });
      expect(await post({ name: 'x', repository_storage: 'other' })).toMatchObject({ status: 403 });
      expect(await asAdmin({ name: 'x', repository_storage: 'other' })).toMatchObject({
        status: 400,
        body: { message: { repository_storage: ['is not included in the list'] } },
      });
    });

    it('places projects in a group only for its maintainers, within its visibility', async () => {
      const privateGroup = await createGroup(site, { visibility: 'private' }, owner.token);
      const maintainer = await createUser(site);
      await addMember(site, 'groups', privateGroup.id, maintainer, 40, owner.token);
      await addMember(site, 'groups', privateGroup.id, developer, 30, owner.token);
      const created = await site.api('/projects', { method: 'POST', body: { name: 'Grouped', namespace_id: privateGroup.id }, as: maintainer.token });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ namespace: { id: privateGroup.id, kind: 'group', full_path: privateGroup.full_path }, creator_id: maintainer.id });
      expect(created.body.owner).toBeUndefined();
      expect(created.body.name_with_namespace).toBe(`${privateGroup.full_name} / Grouped`);
      // Access comes through the group: no project member is added.
      expect((await site.api(`/projects/${created.body.id}/members`, { as: maintainer.token })).body).toEqual([]);

      const post = (body: object, as: string) => site.api('/projects', { method: 'POST', body, as });
      expect((await post({ name: 'Nope', namespace_id: privateGroup.id }, developer.token)).status).toBe(403);
      expect(await post({ name: 'Nope', namespace_id: privateGroup.id }, stranger.token)).toMatchObject({ status: 404, body: { message: '404 Namespace Not Found' } });
      expect(await post({ name: 'Nope', namespace_id: 999999 }, owner.token)).toMatchObject({ status: 404, body: { message: '404 Namespace Not Found' } });
      expect(await post({ name: 'Loud', namespace_id: privateGroup.id, visibility: 'public' }, owner.token)).toMatchObject({
        status: 400,
        body: { message: { visibility_level: ['public is not allowed in a private group.'] } },
      });
    });

    it('refuses personal projects past the projects limit', async () => {
      const limited = await createUser(site, { projects_limit: 1 });
      expect((await site.api('/projects', { method: 'POST', body: { name: 'first' }, as: limited.token })).status).toBe(201);
      const second = await site.api('/projects', { method: 'POST', body: { name: 'second' }, as: limited.token });
      expect(second.status).toBe(403);
      expect(second.body.message).toContain('Your project limit is 1 projects!');
    });

    it('stores an avatar sent as multipart and serves it for public projects', async () => {
      const form = new FormData();
      form.set('name', 'With Avatar');
      form.set('visibility', 'public');
      form.set('avatar', new Blob([Buffer.from('89504e470d0a1a0a', 'hex')], { type: 'image/png' }), 'logo.png');
      const response = await site.api('/projects', { method: 'POST', form, as: owner.token });
      expect(response.status).toBe(201);
      expect(response.body.avatar_url).toBe(`${site.url}/uploads/-/system/project/avatar/${response.body.id}/logo.png`);
      const served = await site.api(`/uploads/-/system/project/avatar/${response.body.id}/logo.png`, { as: null });
      expect(served.status).toBe(200);

      const bad = new FormData();
      bad.set('name', 'Bad Avatar');
      bad.set('avatar', new Blob(['text']), 'notes.txt');
      const rejected = await site.api('/projects', { method: 'POST', form: bad, as: owner.token });
      expect(rejected.status).toBe(400);
      expect(rejected.body.message.avatar[0]).toMatch(/file format is not supported/);
    });
    it('removes the rows again when git cannot create the repository', async () => {
      const repositories = path.join(site.dataDir, 'repositories');
      const aside = path.join(site.dataDir, 'repositories-aside');
      await rename(repositories, aside);
      // A plain file where the repositories directory belongs makes `git init` fail.
      await writeFile(repositories, 'not a directory');
      try {
        const response = await site.api('/projects', { method: 'POST', body: { name: 'Unlucky' }, as: owner.token });
        expect(response).toMatchObject({ status: 400, body: { message: { base: ['Failed to create repository'] } } });
        expect((await site.api(`/projects/${encodeURIComponent(`${owner.username}/unlucky`)}`)).status).toBe(404);
      } finally {
        await rm(repositories);
        await rename(aside, repositories);
      }
      expect((await site.api('/projects', { method: 'POST', body: { name: 'Unlucky' }, as: owner.token })).status).toBe(201);
    });
  });

  describe('POST /projects/user/:user_id', () => {
    it('lets admins create a project owned by another user', async () => {
      const response = await site.api(`/projects/user/${stranger.id}`, { method: 'POST', body: { name: 'Made For You' } });
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ owner: { id: stranger.id }, creator_id: stranger.id, namespace: { full_path: stranger.username } });
      const mine = await site.api(`/projects/${response.body.id}`, { as: stranger.token });
      expect(mine.body.permissions.project_access).toEqual({ access_level: 40, notification_level: 3 });

      expect(await site.api(`/projects/user/${stranger.id}`, { method: 'POST', body: { path: 'only-path' } })).toMatchObject({
        status: 400,
        body: { message: 'name is missing' },
      });
      expect(await site.api('/projects/user/999999', { method: 'POST', body: { name: 'x' } })).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
      expect((await site.api(`/projects/user/${stranger.id}`, { method: 'POST', body: { name: 'x' }, as: owner.token })).status).toBe(403);
      expect((await site.api(`/projects/user/${stranger.id}`, { method: 'POST', body: { name: 'x' }, as: null })).status).toBe(401);
    });
  });

  describe('GET /projects/:id', () => {
    it('finds a project by id or URL-encoded full path', async () => {
      const byId = await site.api(`/projects/${privateProject.id}`, { as: owner.token });
      expect(byId.status).toBe(200);
      const byPath = await site.api(`/projects/${encodeURIComponent(privateProject.path_with_namespace.toUpperCase())}`, { as: owner.token });
      expect(byPath.body).toEqual(byId.body);
      expect(await site.api(`/projects/${encodeURIComponent('no/such')}`)).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
      expect((await site.api('/projects/999999')).status).toBe(404);
    });

    it('applies visibility: anonymous public only, internal for non-external users, private for members', async () => {
      const status = async (project: any, as?: string | null) => (await site.api(`/projects/${project.id}`, { as })).status;
      expect(await status(publicProject, null)).toBe(200);
      expect(await status(internalProject, null)).toBe(404);
      expect(await status(privateProject, null)).toBe(404);
      expect(await status(internalProject, stranger.token)).toBe(200);
      expect(await status(internalProject, external.token)).toBe(404);
      expect(await status(publicProject, external.token)).toBe(200);
      expect(await status(privateProject, stranger.token)).toBe(404);
      expect(await status(privateProject, developer.token)).toBe(200);
      expect(await status(privateProject)).toBe(200);
    });

    it('gives anonymous callers BasicProjectDetails and members their permissions', async () => {
      const anonymous = await site.api(`/projects/${publicProject.id}`, { as: null });
      expect(Object.keys(anonymous.body).sort()).toEqual(BASIC_KEYS);

      const asDeveloper = await site.api(`/projects/${privateProject.id}`, { as: developer.token });
      expect(asDeveloper.body.permissions).toEqual({ project_access: { access_level: 30, notification_level: 3 }, group_access: null });
      // import_error and runners_token are for maintainers and above.
      expect(asDeveloper.body.runners_token).toBeUndefined();
      expect('import_error' in asDeveloper.body).toBe(false);
      const asOwner = await site.api(`/projects/${privateProject.id}`, { as: owner.token });
      expect(asOwner.body.runners_token).toEqual(expect.any(String));
      expect(asOwner.body.import_error).toBeNull();
      const asStranger = await site.api(`/projects/${publicProject.id}`, { as: stranger.token });
      expect(asStranger.body.permissions).toEqual({ project_access: null, group_access: null });
      const asAdmin = await site.api(`/projects/${privateProject.id}`);
      expect(asAdmin.body.runners_token).toEqual(expect.any(String));
    });

    it('shows group_access for members of the project group', async () => {
      const groupProject = await createProject(site, { name: 'In Group', namespace_id: group.id }, owner.token);
      const viewer = await createUser(site);
      await addMember(site, 'groups', group.id, viewer, 20, owner.token);
      const response = await site.api(`/projects/${groupProject.id}`, { as: viewer.token });
      expect(response.body.permissions).toEqual({ project_access: null, group_access: { access_level: 20, notification_level: 3 } });
    });

    it('reports statistics from the repository on disk for reporters and admins', async () => {
      const project = await createProject(site, { name: 'Measured', visibility: 'public' }, owner.token);
      const empty = await site.api(`/projects/${project.id}?statistics=true`, { as: owner.token });
      expect(empty.body.statistics).toMatchObject({ commit_count: 0, lfs_objects_size: 0, job_artifacts_size: 0 });
      expect(empty.body.statistics.repository_size).toBeGreaterThan(0);

      await pushCommits(repositoryPath(site.dataDir, project.id), 3);
      const full = await site.api(`/projects/${project.id}?statistics=True`, { as: owner.token });
      expect(full.body.statistics.commit_count).toBe(3);
      expect(full.body.statistics.repository_size).toBeGreaterThan(empty.body.statistics.repository_size);
      expect(full.body.statistics.storage_size).toBe(full.body.statistics.repository_size);
      expect((await site.api(`/projects/${project.id}?statistics=true`)).body.statistics.commit_count).toBe(3);
      // A non-member of a public project sees no statistics, nor does an anonymous caller.
      expect((await site.api(`/projects/${project.id}?statistics=true`, { as: stranger.token })).body.statistics).toBeUndefined();
      expect((await site.api(`/projects/${project.id}?statistics=true`, { as: null })).body.statistics).toBeUndefined();
      expect((await site.api(`/projects/${project.id}`, { as: owner.token })).body.statistics).toBeUndefined();
    });
  });

  describe('GET /projects', () => {
    it('lists what each caller may see', async () => {
      const anonymous = idsOf((await site.api('/projects?per_page=100', { as: null })).body);
      expect(anonymous).toContain(publicProject.id);
      expect(anonymous).not.toContain(internalProject.id);
      expect(anonymous).not.toContain(privateProject.id);

      const user = idsOf((await site.api('/projects?per_page=100', { as: stranger.token })).body);
      expect(user).toEqual(expect.arrayContaining([publicProject.id, internalProject.id]));
      expect(user).not.toContain(privateProject.id);
      const ext = idsOf((await site.api('/projects?per_page=100', { as: external.token })).body);
      expect(ext).not.toContain(internalProject.id);
      expect(idsOf((await site.api('/projects?per_page=100', { as: developer.token })).body)).toContain(privateProject.id);
      expect(idsOf((await site.api('/projects?per_page=100')).body)).toEqual(expect.arrayContaining([privateProject.id, internalProject.id, publicProject.id]));
    });

    it('answers BasicProjectDetails to anonymous callers and simple=true, ProjectWithAccess otherwise', async () => {
      const anonymous = await site.api('/projects', { as: null });
      expect(Object.keys(anonymous.body[0]).sort()).toEqual(BASIC_KEYS);
      const simple = await site.api('/projects?simple=true', { as: owner.token });
      expect(Object.keys(simple.body[0]).sort()).toEqual(BASIC_KEYS);
      const full = await site.api('/projects', { as: owner.token });
      expect(full.body[0].permissions).toBeDefined();
      expect(full.body[0].visibility).toBeDefined();
    });

    it('orders by created_at desc by default and by any allowed column', async () => {
      const all = idsOf((await site.api('/projects?per_page=100')).body);
      expect(all).toEqual([...all].sort((a, b) => b - a));
      const byName = (await site.api('/projects?order_by=name&sort=asc&per_page=100')).body.map((p: { name: string }) => p.name.toLowerCase());
      expect(byName).toEqual([...byName].sort());
      const byId = idsOf((await site.api('/projects?order_by=id&sort=asc&per_page=100')).body);
      expect(byId).toEqual([...byId].sort((a, b) => a - b));
      expect((await site.api('/projects?order_by=stars')).body).toEqual({ message: 'order_by does not have a valid value' });
    });

    it('filters by search, visibility, ownership, membership and features', async () => {
      const ids = async (query: string, as: string | null = owner.token) => idsOf((await site.api(`/projects?per_page=100&${query}`, { as })).body);
      expect(await ids('search=SAUCE')).toEqual([privateProject.id]);
      expect(await ids('search=recipes')).toEqual([privateProject.id]);
      expect(await ids('search=open-book')).toEqual([publicProject.id]);
      expect(await ids('visibility=internal')).toContain(internalProject.id);
      expect(await ids('visibility=internal')).not.toContain(publicProject.id);
      const owned = await ids('owned=true');
      expect(owned).toEqual(expect.arrayContaining([privateProject.id, internalProject.id, publicProject.id]));
      expect(await ids('owned=true', developer.token)).toEqual([]);
      const memberOf = await ids('membership=true', developer.token);
      expect(memberOf).toContain(privateProject.id);
      expect(memberOf).not.toContain(publicProject.id);
      expect(await ids('membership=true', stranger.token)).not.toContain(publicProject.id);
      expect(await ids('with_issues_enabled=true')).not.toContain((await site.api(`/projects/${encodeURIComponent(`${owner.username}/from-path-only`)}`)).body.id);
      expect(await ids('owned=true', null)).toEqual([]);
    });

    it('hides archived projects unless archived=true', async () => {
      const project = await createProject(site, { name: 'Old Stuff' }, owner.token);
      expect((await site.api(`/projects/${project.id}/archive`, { method: 'POST', as: owner.token })).status).toBe(201);
      expect(await idsOfList('')).not.toContain(project.id);
      expect(await idsOfList('archived=false')).not.toContain(project.id);
      const all = await idsOfList('archived=true');
      expect(all).toContain(project.id);
      expect(all).toContain(privateProject.id);
    });

    it('pages in SQL with every header', async () => {
      const first = await site.api('/projects?per_page=2&order_by=id&sort=asc');
      expect(first.body).toHaveLength(2);
      const total = Number(first.headers['x-total']);
      expect(total).toBeGreaterThan(4);
      expect(first.headers).toMatchObject({ 'x-per-page': '2', 'x-page': '1', 'x-next-page': '2', 'x-prev-page': '', 'x-total-pages': String(Math.ceil(total / 2)) });
      expect(String(first.headers.link)).toContain(`<${site.url}/api/v4/projects?per_page=2&order_by=id&sort=asc&page=2>; rel="next"`);
      const second = await site.api('/projects?per_page=2&order_by=id&sort=asc&page=2');
      expect(idsOf(second.body)[0]).toBeGreaterThan(idsOf(first.body)[1]);
      const head = await site.api('/projects?per_page=2', { method: 'HEAD' });
      expect(head.headers['x-total']).toBe(String(total));
    });

    it('adds statistics to the projects the caller may see them for', async () => {
      const response = await site.api('/projects?statistics=true&per_page=100', { as: developer.token });
      const byId = new Map(response.body.map((p: any) => [p.id, p]));
      expect((byId.get(privateProject.id) as any).statistics).toMatchObject({ commit_count: 0 });
      expect((byId.get(publicProject.id) as any).statistics).toBeUndefined();
    });

    it('filters by custom attributes for admins only', async () => {
      expect((await site.api(`/projects/${publicProject.id}/custom_attributes/tier`, { method: 'PUT', body: { value: 'gold' } })).status).toBe(200);
      expect(await idsOfList('custom_attributes[tier]=gold')).toEqual([publicProject.id]);
      const asUser = idsOf((await site.api('/projects?custom_attributes[tier]=gold&per_page=100', { as: owner.token })).body);
      expect(asUser.length).toBeGreaterThan(1);
    });

    async function idsOfList(query: string) {
      return idsOf((await site.api(`/projects?per_page=100&${query}`)).body);
    }
  });

  describe('GET /users/:user_id/projects', () => {
    it("lists the user's namespace projects visible to the caller, by id or username", async () => {
      const byId = idsOf((await site.api(`/users/${owner.id}/projects?per_page=100`, { as: stranger.token })).body);
      expect(byId).toEqual(expect.arrayContaining([publicProject.id, internalProject.id]));
      expect(byId).not.toContain(privateProject.id);
      const byName = idsOf((await site.api(`/users/${owner.username}/projects?per_page=100`, { as: null })).body);
      expect(byName).toContain(publicProject.id);
      expect(byName).not.toContain(internalProject.id);
      expect(await site.api('/users/no-such-user/projects')).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    });
  });

  describe('PUT /projects/:id', () => {
    it('lets maintainers update, but only owners rename or change visibility', async () => {
      const project = await createProject(site, { name: 'Editable' }, owner.token);
      const maintainer = await createUser(site);
      await addMember(site, 'projects', project.id, maintainer, 40, owner.token);
      await addMember(site, 'projects', project.id, developer, 30, owner.token);
      const put = (body: object, as: string | null) => site.api(`/projects/${project.id}`, { method: 'PUT', body, as });

      const updated = await put({ description: 'new words', issues_enabled: false, tag_list: ['x'] }, maintainer.token);
      expect(updated).toMatchObject({ status: 200, body: { description: 'new words', issues_enabled: false, tag_list: ['x'] } });
      expect(updated.body.permissions).toBeUndefined();
      expect((await put({ name: 'Renamed' }, maintainer.token)).status).toBe(403);
      expect((await put({ visibility: 'public' }, maintainer.token)).status).toBe(403);
      // Sending the current name is no rename.
      expect((await put({ name: 'Editable', description: 'again' }, maintainer.token)).status).toBe(200);
      expect((await put({ description: 'x' }, developer.token)).status).toBe(403);
      expect((await put({ description: 'x' }, stranger.token)).status).toBe(404);
      expect((await put({ description: 'x' }, null)).status).toBe(401);
      expect((await put({ name: 'Renamed', path: 'renamed', visibility: 'internal' }, owner.token)).body).toMatchObject({
        name: 'Renamed',
        path: 'renamed',
        visibility: 'internal',
        path_with_namespace: `${owner.username}/renamed`,
      });
      // The repository never moves: its path derives from the id.
      expect(existsSync(repositoryPath(site.dataDir, project.id))).toBe(true);

      const none = await put({}, owner.token);
      expect(none.status).toBe(400);
      expect(none.body.message).toMatch(/^name, path, description, .* are missing, at least one parameter must be provided$/);
      expect(await put({ name: 'Secret Sauce' }, owner.token)).toMatchObject({ status: 400, body: { message: { name: ['has already been taken'] } } });
    });

    it('moves HEAD when the default branch changes', async () => {
      const project = await createProject(site, { name: 'Branchy' }, owner.token);
      const response = await site.api(`/projects/${project.id}?default_branch=develop`, { method: 'PUT', body: {}, as: owner.token });
      expect(response.body.default_branch).toBe('develop');
      expect((await readFile(path.join(repositoryPath(site.dataDir, project.id), 'HEAD'), 'utf8')).trim()).toBe('ref: refs/heads/develop');
    });
  });

  describe('DELETE /projects/:id', () => {
    it('lets owners delete, answering 202 and removing the repository', async () => {
      const project = await createProject(site, { name: 'Doomed' }, owner.token);
      await addMember(site, 'projects', project.id, developer, 40, owner.token);
      const repository = repositoryPath(site.dataDir, project.id);
      expect(existsSync(repository)).toBe(true);
      expect((await site.api(`/projects/${project.id}`, { method: 'DELETE', as: developer.token })).status).toBe(403);
      expect((await site.api(`/projects/${project.id}`, { method: 'DELETE', as: null })).status).toBe(401);
      expect(await site.api(`/projects/${project.id}`, { method: 'DELETE', as: owner.token })).toMatchObject({ status: 202, body: { message: '202 Accepted' } });
      expect(existsSync(repository)).toBe(false);
      expect((await site.api(`/projects/${project.id}`)).status).toBe(404);
    });
  });
});

/** Makes `count` commits in a temp clone and pushes them to the bare repository over a file:// remote. */
async function pushCommits(bare: string, count: number): Promise<void> {
  const home = await mkdtemp(path.join(tmpdir(), 'geoforge-git-'));
  const env = {
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  };
  try {
    const work = path.join(home, 'work');
    await runGit(['clone', '--quiet', `file://${bare}`, work], { env });
    for (let i = 0; i < count; i++) {
      await writeFile(path.join(work, `file${i}.txt`), `content ${i}\n`.repeat(100));
      await runGit(['add', '.'], { cwd: work, env });
      await runGit(['commit', '--quiet', '-m', `commit ${i}`], { cwd: work, env });
    }
    await runGit(['push', '--quiet', 'origin', 'HEAD:refs/heads/master'], { cwd: work, env });
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
