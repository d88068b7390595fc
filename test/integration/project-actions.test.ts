import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repositoryPath } from '../../src/storage/layout.js';
import { addMember, addMembers, createGroup, createProject, createUser, createUsers, type TestGroup, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

const idsOf = (body: { id: number }[]) => body.map((row) => row.id);

describe('project actions', () => {
  let site: TestSite;
  let owner: TestUser, maintainer: TestUser, developer: TestUser, stranger: TestUser;
  let project: any;

  beforeAll(async () => {
    site = await startSite();
    [owner, maintainer, developer, stranger] = await createUsers(site, 4);
    project = await createProject(site, { name: 'Acted Upon' }, owner.token);
    await addMembers(site, 'projects', project.id, [[maintainer, 40], [developer, 30]], owner.token);
  });
  afterAll(() => site.stop());

  describe('star and unstar', () => {
    it('stars once, answers 304 after, and counts stars', async () => {
      const publicProject = await createProject(site, { name: 'Starry', visibility: 'public' }, owner.token);
      const star = (action: string, as: string | null) => site.api(`/projects/${publicProject.id}/${action}`, { method: 'POST', body: {}, as });
      const starred = await star('star', stranger.token);
      expect(starred).toMatchObject({ status: 201, body: { id: publicProject.id, star_count: 1 } });
      expect(starred.body.permissions).toBeUndefined();
      expect((await star('star', stranger.token)).status).toBe(304);
      expect((await star('star', owner.token)).body.star_count).toBe(2);
      const starredIds = idsOf((await site.api('/projects?starred=true', { as: stranger.token })).body);
      expect(starredIds).toEqual([publicProject.id]);
      expect((await star('unstar', stranger.token))).toMatchObject({ status: 201, body: { star_count: 1 } });
      expect((await star('unstar', stranger.token)).status).toBe(304);
      expect((await star('star', null)).status).toBe(401);
      // A private project the caller cannot see is not found.
      expect((await site.api(`/projects/${project.id}/star`, { method: 'POST', as: stranger.token })).status).toBe(404);
    });
  });

  describe('archive and unarchive', () => {
    it('lets owners archive idempotently', async () => {
      const archive = (action: string, as?: string) => site.api(`/projects/${project.id}/${action}`, { method: 'POST', body: {}, as });
      expect((await archive('archive', maintainer.token)).status).toBe(403);
      expect(await archive('archive', owner.token)).toMatchObject({ status: 201, body: { archived: true } });
      expect(await archive('archive', owner.token)).toMatchObject({ status: 201, body: { archived: true } });
      expect(await archive('unarchive', owner.token)).toMatchObject({ status: 201, body: { archived: false } });
      expect(await archive('unarchive', owner.token)).toMatchObject({ status: 201, body: { archived: false } });
      // Admins may too.
      expect(await archive('archive')).toMatchObject({ status: 201, body: { archived: true } });
      expect(await archive('unarchive')).toMatchObject({ status: 201, body: { archived: false } });
    });
  });

  describe('share and unshare', () => {
    let team: TestGroup;
    let teammate: TestUser;
    beforeAll(async () => {
      team = await createGroup(site, { visibility: 'private' }, owner.token);
      teammate = await createUser(site);
      await addMember(site, 'groups', team.id, teammate, 40, owner.token);
    });

    it('shares with a group, giving its members capped access', async () => {
      expect((await site.api(`/projects/${project.id}`, { as: teammate.token })).status).toBe(404);
      const share = await site.api(`/projects/${project.id}/share`, {
        method: 'POST',
        body: { group_id: team.id, group_access: 20, expires_at: null },
        as: owner.token,
      });
      expect(share).toMatchObject({ status: 201, body: { project_id: project.id, group_id: team.id, group_access: 20, expires_at: null } });
      expect(share.body.id).toEqual(expect.any(Number));

      const seen = await site.api(`/projects/${project.id}`, { as: teammate.token });
      expect(seen.status).toBe(200);
      expect(seen.body.shared_with_groups).toEqual([{ group_id: team.id, group_name: team.name, group_access_level: 20 }]);
      expect(idsOf((await site.api('/projects?membership=true', { as: teammate.token })).body)).toEqual([project.id]);
      // Capped at reporter: a maintainer of the group cannot update the project.
      expect((await site.api(`/projects/${project.id}`, { method: 'PUT', body: { description: 'x' }, as: teammate.token })).status).toBe(403);
      const users = idsOf((await site.api(`/projects/${project.id}/users?per_page=100`, { as: developer.token })).body);
      expect(users).toContain(teammate.id);

      // The group's detail lists the projects shared with it.
      const detail = await site.api(`/groups/${team.id}`, { as: teammate.token });
      expect(idsOf(detail.body.shared_projects)).toEqual([project.id]);

      expect(await site.api(`/projects/${project.id}/share`, { method: 'POST', body: { group_id: team.id, group_access: 30 }, as: owner.token })).toMatchObject({
        status: 409,
        body: { message: 'Group already shared with this group' },
      });
      expect((await site.api(`/projects/${project.id}/share/${team.id}`, { method: 'DELETE', as: owner.token })).status).toBe(204);
      expect((await site.api(`/projects/${project.id}`, { as: teammate.token })).status).toBe(404);
      expect(await site.api(`/projects/${project.id}/share/${team.id}`, { method: 'DELETE', as: owner.token })).toMatchObject({
        status: 404,
        body: { message: '404 Group Link Not Found' },
      });
    });

    it('validates the share', async () => {
      const share = (body: object, as: string = owner.token) => site.api(`/projects/${project.id}/share`, { method: 'POST', body, as });
      expect(await share({ group_id: team.id, group_access: 50 })).toMatchObject({ status: 400, body: { message: 'group_access does not have a valid value' } });
      expect(await share({ group_id: team.id })).toMatchObject({ status: 400, body: { message: 'group_access is missing' } });
      expect(await share({ group_access: 30 })).toMatchObject({ status: 400, body: { message: 'group_id is missing' } });
      expect(await share({ group_id: 999999, group_access: 30 })).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
      expect((await share({ group_id: team.id, group_access: 30 }, developer.token)).status).toBe(403);
      // A maintainer of the project who cannot see the private group finds no such group.
      expect(await share({ group_id: team.id, group_access: 30 }, maintainer.token)).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
      expect((await share({ group_id: team.id, group_access: 30 }, stranger.token)).status).toBe(404);
      const hidden = await createGroup(site, { visibility: 'private' });
      expect(await share({ group_id: hidden.id, group_access: 30 })).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
      expect((await site.api(`/projects/${project.id}/share/${team.id}`, { method: 'DELETE', as: developer.token })).status).toBe(403);
    });

    it("refuses when the project's group locks sharing", async () => {
      const locked = await createGroup(site, { visibility: 'private' }, owner.token);
      expect((await site.api(`/groups/${locked.id}`, { method: 'PUT', body: { share_with_group_lock: true }, as: owner.token })).status).toBe(200);
      const inLocked = await createProject(site, { name: 'Locked In', namespace_id: locked.id }, owner.token);
      expect(await site.api(`/projects/${inLocked.id}/share`, { method: 'POST', body: { group_id: team.id, group_access: 30 }, as: owner.token })).toMatchObject({
        status: 400,
        body: { message: 'The project sharing with group is disabled' },
      });
      // Nor may a project be shared with its own group.
      const open = await createGroup(site, { visibility: 'private' }, owner.token);
      const inOpen = await createProject(site, { name: 'Open In', namespace_id: open.id }, owner.token);
      expect((await site.api(`/projects/${inOpen.id}/share`, { method: 'POST', body: { group_id: open.id, group_access: 30 }, as: owner.token })).status).toBe(409);
    });
  });

  describe('GET /projects/:id/users', () => {
    it('lists direct and inherited members as UserBasic, with search', async () => {
      const team = await createGroup(site, { visibility: 'private' }, owner.token);
      const inGroup = await createProject(site, { name: 'Team Work', namespace_id: team.id }, owner.token);
      const direct = await createUser(site, { name: 'Direct Dora' });
      await addMember(site, 'projects', inGroup.id, direct, 20, owner.token);
      const response = await site.api(`/projects/${inGroup.id}/users`, { as: direct.token });
      expect(response.status).toBe(200);
      expect(idsOf(response.body).sort((a, b) => a - b)).toEqual([owner.id, direct.id].sort((a, b) => a - b));
      expect(Object.keys(response.body[0]).sort()).toEqual(['avatar_url', 'id', 'name', 'state', 'username', 'web_url']);
      expect(response.headers['x-total']).toBe('2');
      expect(idsOf((await site.api(`/projects/${inGroup.id}/users?search=dora`, { as: direct.token })).body)).toEqual([direct.id]);
      expect((await site.api(`/projects/${inGroup.id}/users`, { as: stranger.token })).status).toBe(404);
    });
  });

  describe('forks', () => {
    it('lists the forks the caller can see and links each to its source', async () => {
      const source = await createProject(site, { name: 'Upstream', visibility: 'public' }, owner.token);
      const visibleFork = (await site.api(`/projects/${source.id}/fork`, { method: 'POST', body: {}, as: stranger.token })).body;
      const team = await createGroup(site, { visibility: 'private' }, stranger.token);
      const hiddenFork = (await site.api(`/projects/${source.id}/fork`, { method: 'POST', body: { namespace: team.id }, as: stranger.token })).body;
      expect(hiddenFork).toMatchObject({ visibility: 'private', forked_from_project: { id: source.id } });

      expect(idsOf((await site.api(`/projects/${source.id}/forks`, { as: owner.token })).body)).toEqual([visibleFork.id]);
      expect(idsOf((await site.api(`/projects/${source.id}/forks`, { as: stranger.token })).body)).toEqual([hiddenFork.id, visibleFork.id]);
      expect(idsOf((await site.api(`/projects/${source.id}/forks`, { as: null })).body)).toEqual([visibleFork.id]);

      const fork = await site.api(`/projects/${visibleFork.id}`, { as: owner.token });
      expect(fork.body.forked_from_project).toMatchObject({ id: source.id, path_with_namespace: source.path_with_namespace, forks_count: 2 });
      expect(fork.body.forked_from_project.permissions).toBeUndefined();
      expect((await site.api(`/projects/${source.id}`, { as: owner.token })).body).toMatchObject({ forks_count: 2 });
      expect((await site.api(`/projects/${source.id}`, { as: owner.token })).body.forked_from_project).toBeUndefined();
    });
  });

  describe('group projects', () => {
    it("lists a group's projects visible to the caller, archived hidden by default", async () => {
      const team = await createGroup(site, { visibility: 'public' }, owner.token);
      const open = await createProject(site, { name: 'Open One', namespace_id: team.id, visibility: 'public' }, owner.token);
      const closed = await createProject(site, { name: 'Closed One', namespace_id: team.id }, owner.token);
      const old = await createProject(site, { name: 'Old One', namespace_id: team.id, visibility: 'public' }, owner.token);
      await site.api(`/projects/${old.id}/archive`, { method: 'POST', as: owner.token });

      expect(idsOf((await site.api(`/groups/${team.id}/projects`, { as: owner.token })).body)).toEqual([closed.id, open.id]);
      expect(idsOf((await site.api(`/groups/${team.id}/projects?archived=true`, { as: owner.token })).body)).toEqual([old.id, closed.id, open.id]);
      const anonymous = await site.api(`/groups/${encodeURIComponent(team.full_path)}/projects`, { as: null });
      expect(idsOf(anonymous.body)).toEqual([open.id]);
      expect(anonymous.body[0].permissions).toBeUndefined();
      expect(idsOf((await site.api(`/groups/${team.id}/projects?search=closed`)).body)).toEqual([closed.id]);
      expect(idsOf((await site.api(`/groups/${team.id}/projects?visibility=public&order_by=name&sort=asc&simple=true`)).body)).toEqual([open.id]);

      const hidden = await createGroup(site, { visibility: 'private' }, owner.token);
      expect(await site.api(`/groups/${hidden.id}/projects`, { as: stranger.token })).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    });

    it('lets admins transfer a project into a group, keeping its repository', async () => {
      const team = await createGroup(site, { visibility: 'internal' }, owner.token);
      const moving = await createProject(site, { name: 'Mover', visibility: 'public' }, owner.token);
      const repository = repositoryPath(site.dataDir, moving.id);

      expect((await site.api(`/groups/${team.id}/projects/${moving.id}`, { method: 'POST', as: owner.token })).status).toBe(403);
      const moved = await site.api(`/groups/${team.id}/projects/${encodeURIComponent(moving.path_with_namespace)}`, { method: 'POST' });
      expect(moved.status).toBe(201);
      expect(moved.body).toMatchObject({ id: team.id, full_path: team.full_path });
      expect(idsOf(moved.body.projects)).toEqual([moving.id]);

      const after = await site.api(`/projects/${moving.id}`);
      expect(after.body).toMatchObject({
        path_with_namespace: `${team.full_path}/mover`,
        namespace: { id: team.id, kind: 'group' },
        // Narrowed to the group's visibility.
        visibility: 'internal',
      });
      expect(after.body.owner).toBeUndefined();
      expect(repositoryPath(site.dataDir, moving.id)).toBe(repository);
      expect(existsSync(repository)).toBe(true);

      const clash = await createProject(site, { name: 'Mover' }, owner.token);
      const failed = await site.api(`/groups/${team.id}/projects/${clash.id}`, { method: 'POST' });
      expect(failed.status).toBe(400);
      expect(failed.body.message).toMatch(/^Failed to transfer project/);
      expect(await site.api(`/groups/${team.id}/projects/999999`, { method: 'POST' })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    });
  });

  describe('custom attributes', () => {
    it('are for admins only', async () => {
      const base = `/projects/${project.id}/custom_attributes`;
      expect(await site.api(`${base}/team`, { method: 'PUT', body: { value: 'geo' } })).toMatchObject({ status: 200, body: { key: 'team', value: 'geo' } });
      expect((await site.api(base)).body).toEqual([{ key: 'team', value: 'geo' }]);
      expect((await site.api(`/projects/${encodeURIComponent(project.path_with_namespace)}/custom_attributes/team`)).body).toEqual({ key: 'team', value: 'geo' });
      expect((await site.api(`${base}/team`, { as: owner.token })).status).toBe(403);
      expect((await site.api(`${base}/team`, { method: 'DELETE' })).status).toBe(204);
      expect(await site.api(`${base}/team`)).toMatchObject({ status: 404, body: { message: '404 Custom Attribute Not Found' } });
      expect((await site.api('/projects/999999/custom_attributes')).status).toBe(404);
    });
  });
});
