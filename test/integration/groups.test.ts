import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { repositoryPath } from '../../src/storage/layout.js';
import { createGroup, createProject, createUser, type TestGroup, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

const GROUP_KEYS = [
  'avatar_url',
  'description',
  'full_name',
  'full_path',
  'id',
  'lfs_enabled',
  'name',
  'parent_id',
  'path',
  'request_access_enabled',
  'visibility',
  'web_url',
];
const DETAIL_KEYS = [...GROUP_KEYS, 'projects', 'shared_projects', 'shared_with_groups', 'shared_runners_minutes_limit'].sort();

const idsOf = (body: { id: number }[]) => body.map((group) => group.id);

describe('groups', () => {
  let site: TestSite;
  let owner: TestUser;
  let member: TestUser;
  let stranger: TestUser;
  let external: TestUser;
  let privateGroup: TestGroup;
  let internalGroup: TestGroup;
  let publicGroup: TestGroup;

  beforeAll(async () => {
    site = await startSite();
    owner = await createUser(site);
    member = await createUser(site);
    stranger = await createUser(site);
    external = await createUser(site, { external: true });
    privateGroup = await createGroup(site, { visibility: 'private' }, owner.token);
    internalGroup = await createGroup(site, { visibility: 'internal' }, owner.token);
    publicGroup = await createGroup(site, { visibility: 'public' }, owner.token);
    const added = await site.api(`/groups/${privateGroup.id}/members`, { method: 'POST', body: { user_id: member.id, access_level: 30 }, as: owner.token });
    expect(added.status).toBe(201);
  });
  afterAll(() => site.stop());

  describe('POST /groups', () => {
    it('creates a private group owned by its creator and answers GroupDetail', async () => {
      const response = await site.api('/groups', { method: 'POST', body: { name: 'Platform Team', path: 'platform', description: 'infra' }, as: owner.token });
      expect(response.status).toBe(201);
      expect(Object.keys(response.body).sort()).toEqual(DETAIL_KEYS);
      expect(response.body).toMatchObject({
        name: 'Platform Team',
        path: 'platform',
        description: 'infra',
        visibility: 'private',
        lfs_enabled: true,
        request_access_enabled: false,
        full_name: 'Platform Team',
        full_path: 'platform',
        parent_id: null,
        avatar_url: null,
        web_url: `${site.url}/groups/platform`,
        projects: [],
        shared_projects: [],
        shared_runners_minutes_limit: null,
      });
      expect(response.headers['content-type']).toBe('application/json');
      const members = await site.api(`/groups/${response.body.id}/members`, { as: owner.token });
      expect(members.body).toEqual([expect.objectContaining({ id: owner.id, username: owner.username, access_level: 50, expires_at: null })]);
    });

    it('accepts the parameters in the query string, as python-gitlab sends them', async () => {
      const response = await site.api('/groups?name=Query%20Made&path=query-made&visibility=public&lfs_enabled=False&request_access_enabled=True', {
        method: 'POST',
        body: {},
      });
      expect(response).toMatchObject({ status: 201, body: { path: 'query-made', visibility: 'public', lfs_enabled: false, request_access_enabled: true } });
    });

    it('nests subgroups: full path, full name and web_url come from the parent', async () => {
      const parent = await createGroup(site, { name: 'Parent', path: 'nest-parent', visibility: 'public' }, owner.token);
      const child = await createGroup(site, { name: 'Child', path: 'child', parent_id: parent.id, visibility: 'internal' }, owner.token);
      expect(child).toMatchObject({ full_path: 'nest-parent/child', full_name: 'Parent / Child', parent_id: parent.id, web_url: `${site.url}/groups/nest-parent/child` });
      const leaf = await createGroup(site, { name: 'Leaf', path: 'leaf', parent_id: child.id }, owner.token);
      expect(leaf).toMatchObject({ full_path: 'nest-parent/child/leaf', full_name: 'Parent / Child / Leaf' });
      // The same path may repeat under another parent.
      const other = await createGroup(site, { name: 'Child', path: 'child', parent_id: publicGroup.id }, owner.token);
      expect(other.full_path).toBe(`${publicGroup.path}/child`);
    });

    it('refuses taken paths with GitLab 10.x message, top-level paths also against usernames', async () => {
      const taken = { status: 400, body: { message: 'Failed to save group {:path=>["has already been taken"]}' } };
      expect(await site.api('/groups', { method: 'POST', body: { name: 'Dup', path: privateGroup.path.toUpperCase() } })).toMatchObject(taken);
      expect(await site.api('/groups', { method: 'POST', body: { name: 'Dup', path: owner.username } })).toMatchObject(taken);
      const sub = await createGroup(site, { path: 'twin', parent_id: publicGroup.id }, owner.token);
      expect(await site.api('/groups', { method: 'POST', body: { name: 'Dup', path: sub.path, parent_id: publicGroup.id } })).toMatchObject(taken);
      // A taken group path also keeps a new user from using it as a username.
      const user = await site.api('/users', { method: 'POST', body: { username: privateGroup.path, email: 'clash@example.com', name: 'Clash', password: 'password123' } });
      expect(user.status).toBe(409);
    });

    it('validates names, paths and the visibility against the parent', async () => {
      expect(await site.api('/groups', { method: 'POST', body: { name: 'x' } })).toMatchObject({ status: 400, body: { message: 'path is missing' } });
      expect(await site.api('/groups', { method: 'POST', body: { path: 'x' } })).toMatchObject({ status: 400, body: { message: 'name is missing' } });
      expect(await site.api('/groups', { method: 'POST', body: { name: 'x', path: 'x', visibility: 'secret' } })).toMatchObject({
        status: 400,
        body: { message: 'visibility does not have a valid value' },
      });
      const badPath = await site.api('/groups', { method: 'POST', body: { name: 'Bad', path: '-bad' } });
      expect(badPath.status).toBe(400);
      expect(badPath.body.message).toMatch(/^Failed to save group \{:path=>\["can contain only letters/);
      expect((await site.api('/groups', { method: 'POST', body: { name: 'Reserved', path: 'api' } })).body.message).toBe(
        'Failed to save group {:path=>["api is a reserved name"]}',
      );
      const tooOpen = await site.api('/groups', { method: 'POST', body: { name: 'Open', path: 'too-open', parent_id: privateGroup.id, visibility: 'public' } });
      expect(tooOpen).toMatchObject({
        status: 400,
        body: { message: 'Failed to save group {:visibility_level=>["public is not allowed since the parent group has a private visibility."]}' },
      });
    });

    it('needs a signed-in user allowed to create groups, and ownership of the parent', async () => {
      expect((await site.api('/groups', { method: 'POST', body: { name: 'Anon', path: 'anon' }, as: null })).status).toBe(401);
      const limited = await createUser(site, { can_create_group: false });
      expect(await site.api('/groups', { method: 'POST', body: { name: 'No', path: 'no-create' }, as: limited.token })).toMatchObject({
        status: 403,
        body: { message: '403 Forbidden' },
      });
      // The parent must be visible (404), then owned (403).
      expect(await site.api('/groups', { method: 'POST', body: { name: 'S', path: 's1', parent_id: privateGroup.id }, as: stranger.token })).toMatchObject({
        status: 404,
        body: { message: '404 Group Not Found' },
      });
      expect((await site.api('/groups', { method: 'POST', body: { name: 'S', path: 's2', parent_id: privateGroup.id }, as: member.token })).status).toBe(403);
      expect((await site.api('/groups', { method: 'POST', body: { name: 'S', path: 's3', parent_id: publicGroup.id }, as: stranger.token })).status).toBe(403);
      // The CI minutes limit is for admins.
      expect((await site.api('/groups', { method: 'POST', body: { name: 'M', path: 'minutes', shared_runners_minutes_limit: 5 }, as: owner.token })).status).toBe(403);
      const limitedByAdmin = await createGroup(site, { shared_runners_minutes_limit: 500 });
      expect((await site.api(`/groups/${limitedByAdmin.id}`)).body.shared_runners_minutes_limit).toBe(500);
    });
  });

  describe('visibility', () => {
    const cases: [string, () => string | null, { private: number; internal: number; public: number }][] = [
      ['anonymous', () => null, { private: 404, internal: 404, public: 200 }],
      ['a non-member', () => stranger.token, { private: 404, internal: 200, public: 200 }],
      ['an external user', () => external.token, { private: 404, internal: 404, public: 200 }],
      ['a member', () => member.token, { private: 200, internal: 200, public: 200 }],
      ['an admin', () => undefined as unknown as string, { private: 200, internal: 200, public: 200 }],
    ];
    for (const [who, token, expected] of cases) {
      it(`GET /groups/:id as ${who}`, async () => {
        for (const level of ['private', 'internal', 'public'] as const) {
          const target = { private: privateGroup, internal: internalGroup, public: publicGroup }[level];
          const response = await site.api(`/groups/${target.id}`, { as: token() });
          expect(response.status, `${level} group`).toBe(expected[level]);
          if (response.status === 404) expect(response.body).toEqual({ message: '404 Group Not Found' });
        }
      });
    }

    it('resolves URL-encoded full paths, case-insensitively', async () => {
      const child = await createGroup(site, { path: 'enc-child', parent_id: publicGroup.id, visibility: 'public' }, owner.token);
      const byPath = await site.api(`/groups/${encodeURIComponent(child.full_path)}`, { as: null });
      expect(byPath).toMatchObject({ status: 200, body: { id: child.id } });
      expect((await site.api(`/groups/${encodeURIComponent(child.full_path.toUpperCase())}`, { as: null })).body.id).toBe(child.id);
      expect((await site.api(`/groups/${encodeURIComponent(privateGroup.path)}`, { as: null })).status).toBe(404);
      expect((await site.api('/groups/no%2Fsuch')).status).toBe(404);
      expect((await site.api('/groups/424242')).status).toBe(404);
    });

    it('lets a member of a subgroup see the private parent', async () => {
      const parent = await createGroup(site, { visibility: 'private' }, owner.token);
      const child = await createGroup(site, { parent_id: parent.id }, owner.token);
      const subMember = await createUser(site);
      await site.api(`/groups/${child.id}/members`, { method: 'POST', body: { user_id: subMember.id, access_level: 10 }, as: owner.token });
      expect((await site.api(`/groups/${parent.id}`, { as: subMember.token })).status).toBe(200);
      expect(idsOf((await site.api('/groups?per_page=100', { as: subMember.token })).body)).toEqual(expect.arrayContaining([parent.id, child.id]));
    });
  });

  describe('GET /groups', () => {
    it('shows anonymous callers public groups only', async () => {
      const response = await site.api('/groups?per_page=100', { as: null });
      expect(response.status).toBe(200);
      expect(response.body.every((group: { visibility: string }) => group.visibility === 'public')).toBe(true);
      expect(idsOf(response.body)).toContain(publicGroup.id);
      expect(Object.keys(response.body[0]).sort()).toEqual(GROUP_KEYS);
    });

    it('shows users their own groups, and public and internal ones with all_available', async () => {
      const mine = idsOf((await site.api('/groups?per_page=100', { as: member.token })).body);
      expect(mine).toEqual([privateGroup.id]);
      const all = idsOf((await site.api('/groups?all_available=True&per_page=100', { as: member.token })).body);
      expect(all).toEqual(expect.arrayContaining([privateGroup.id, internalGroup.id, publicGroup.id]));
      const strangers = idsOf((await site.api('/groups?all_available=true&per_page=100', { as: stranger.token })).body);
      expect(strangers).toEqual(expect.arrayContaining([internalGroup.id, publicGroup.id]));
      expect(strangers).not.toContain(privateGroup.id);
      const externals = idsOf((await site.api('/groups?all_available=true&per_page=100', { as: external.token })).body);
      expect(externals).not.toContain(internalGroup.id);
      expect((await site.api('/groups', { as: stranger.token })).body).toEqual([]);
    });

    it('shows admins every group unless all_available=false', async () => {
      const all = idsOf((await site.api('/groups?per_page=100')).body);
      expect(all).toEqual(expect.arrayContaining([privateGroup.id, internalGroup.id, publicGroup.id]));
      expect((await site.api('/groups?all_available=false&per_page=100')).body.length).toBeLessThan(all.length);
    });

    it('searches name or path, skips groups, orders and sorts', async () => {
      const zeta = await createGroup(site, { name: 'Zeta Searchable', path: 'aaa-searchable', visibility: 'public' });
      const alpha = await createGroup(site, { name: 'Alpha Searchable', path: 'zzz-searchable', visibility: 'public' });
      const byName = await site.api('/groups?search=SEARCHABLE', { as: null });
      expect(idsOf(byName.body)).toEqual([alpha.id, zeta.id]);
      expect(idsOf((await site.api('/groups?search=searchable&order_by=path', { as: null })).body)).toEqual([zeta.id, alpha.id]);
      expect(idsOf((await site.api('/groups?search=searchable&order_by=path&sort=desc', { as: null })).body)).toEqual([alpha.id, zeta.id]);
      expect(idsOf((await site.api(`/groups?search=searchable&skip_groups[]=${alpha.id}`, { as: null })).body)).toEqual([zeta.id]);
      expect(idsOf((await site.api('/groups?search=zzz-search', { as: null })).body)).toEqual([alpha.id]);
      expect((await site.api('/groups?search=100%25', { as: null })).body).toEqual([]);
      expect((await site.api('/groups?order_by=id')).status).toBe(400);
    });

    it('keeps owned groups with owned=true', async () => {
      const owned = idsOf((await site.api('/groups?owned=true&per_page=100', { as: owner.token })).body);
      expect(owned).toEqual(expect.arrayContaining([privateGroup.id, internalGroup.id, publicGroup.id]));
      expect((await site.api('/groups?owned=true', { as: member.token })).body).toEqual([]);
    });

    it('pages in SQL with the pagination headers', async () => {
      const response = await site.api('/groups?per_page=2&page=2&search=searchable', { as: null });
      expect(response.headers['x-total']).toBe('2');
      expect(response.headers['x-total-pages']).toBe('1');
      expect(response.body).toEqual([]);
      const first = await site.api('/groups?per_page=1', { as: null });
      expect(first.body).toHaveLength(1);
      expect(first.headers['x-next-page']).toBe('2');
      expect(String(first.headers.link)).toContain('rel="next"');
      expect(Number(first.headers['x-total'])).toBeGreaterThan(1);
      const head = await site.api('/groups', { method: 'HEAD', as: null });
      expect(head.status).toBe(200);
      expect(head.headers['x-total']).toBe(first.headers['x-total']);
    });

    it('adds statistics for admins only', async () => {
      const admin = await site.api(`/groups?statistics=true&search=${publicGroup.path}`);
      expect(admin.body[0].statistics).toEqual({ storage_size: 0, repository_size: 0, lfs_objects_size: 0, job_artifacts_size: 0 });
      const user = await site.api(`/groups?statistics=true&all_available=true&search=${publicGroup.path}`, { as: owner.token });
      expect(user.body[0].statistics).toBeUndefined();
    });

    it('filters by custom attributes for admins', async () => {
      const tagged = await createGroup(site, { visibility: 'public' });
      expect((await site.api(`/groups/${tagged.id}/custom_attributes/tier`, { method: 'PUT', body: { value: 'gold' } })).body).toEqual({ key: 'tier', value: 'gold' });
      expect(idsOf((await site.api('/groups?custom_attributes[tier]=gold')).body)).toEqual([tagged.id]);
      // Ignored for everyone else, as GitLab does.
      expect((await site.api('/groups?custom_attributes[tier]=gold&all_available=true&per_page=100', { as: stranger.token })).body.length).toBeGreaterThan(1);
    });
  });

  describe('GET /groups/:id/subgroups', () => {
    it('lists the direct children the caller may see', async () => {
      const parent = await createGroup(site, { visibility: 'public' }, owner.token);
      const open = await createGroup(site, { name: 'A open', visibility: 'public', parent_id: parent.id }, owner.token);
      const closed = await createGroup(site, { name: 'B closed', visibility: 'private', parent_id: parent.id }, owner.token);
      await createGroup(site, { visibility: 'public', parent_id: open.id }, owner.token);
      expect(idsOf((await site.api(`/groups/${parent.id}/subgroups`, { as: null })).body)).toEqual([open.id]);
      expect(idsOf((await site.api(`/groups/${parent.id}/subgroups`, { as: stranger.token })).body)).toEqual([open.id]);
      expect(idsOf((await site.api(`/groups/${parent.id}/subgroups`, { as: owner.token })).body)).toEqual([open.id, closed.id]);
      expect(idsOf((await site.api(`/groups/${encodeURIComponent(parent.full_path)}/subgroups?sort=desc`)).body)).toEqual([closed.id, open.id]);
      expect(idsOf((await site.api(`/groups/${parent.id}/subgroups?skip_groups[]=${open.id}`)).body)).toEqual([closed.id]);
      expect(idsOf((await site.api(`/groups/${parent.id}/subgroups?search=closed`)).body)).toEqual([closed.id]);
      expect((await site.api(`/groups/${privateGroup.id}/subgroups`, { as: stranger.token })).status).toBe(404);
    });
  });

  describe('PUT /groups/:id', () => {
    it('updates attributes and answers GroupDetail', async () => {
      const target = await createGroup(site, {}, owner.token);
      const response = await site.api(`/groups/${target.id}`, {
        method: 'PUT',
        body: { description: 'new', lfs_enabled: false, request_access_enabled: true, membership_lock: true, share_with_group_lock: true, visibility: 'internal' },
        as: owner.token,
      });
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(DETAIL_KEYS);
      expect(response.body).toMatchObject({ description: 'new', lfs_enabled: false, request_access_enabled: true, visibility: 'internal' });
      const row = site.site.db.prepare('SELECT membership_lock, share_with_group_lock FROM namespaces WHERE id = ?').get(target.id);
      expect(row).toEqual({ membership_lock: 1, share_with_group_lock: 1 });
    });

    it('renames a group and every group below it', async () => {
      const top = await createGroup(site, { name: 'Old Top', path: 'old-top', visibility: 'public' }, owner.token);
      const mid = await createGroup(site, { name: 'Mid', path: 'mid', parent_id: top.id, visibility: 'public' }, owner.token);
      const leaf = await createGroup(site, { name: 'Leaf', path: 'leaf', parent_id: mid.id }, owner.token);
      const renamed = await site.api(`/groups/${top.id}`, { method: 'PUT', body: { path: 'new-top', name: 'New Top' }, as: owner.token });
      expect(renamed.body).toMatchObject({ path: 'new-top', full_path: 'new-top', full_name: 'New Top', web_url: `${site.url}/groups/new-top` });
      expect((await site.api(`/groups/${mid.id}`)).body).toMatchObject({ full_path: 'new-top/mid', full_name: 'New Top / Mid' });
      expect((await site.api(`/groups/${leaf.id}`)).body).toMatchObject({ full_path: 'new-top/mid/leaf', full_name: 'New Top / Mid / Leaf' });
      expect((await site.api(`/groups/${encodeURIComponent('new-top/mid/leaf')}`)).body.id).toBe(leaf.id);
      expect((await site.api(`/groups/${encodeURIComponent('old-top/mid')}`)).status).toBe(404);
      // Renaming a middle group moves only its own subtree.
      await site.api(`/groups/${mid.id}`, { method: 'PUT', body: { path: 'middle' }, as: owner.token });
      expect((await site.api(`/groups/${leaf.id}`)).body.full_path).toBe('new-top/middle/leaf');
      expect((await site.api(`/groups/${top.id}`)).body.full_path).toBe('new-top');
      // The old path is free again, a case change of one's own path is not a conflict.
      expect((await site.api('/groups', { method: 'POST', body: { name: 'Reuse', path: 'old-top' } })).status).toBe(201);
      expect((await site.api(`/groups/${top.id}`, { method: 'PUT', body: { path: 'NEW-top' }, as: owner.token })).body.full_path).toBe('NEW-top');
    });

    it('rejects a taken path and visibilities that break the tree', async () => {
      const top = await createGroup(site, { visibility: 'internal' }, owner.token);
      const child = await createGroup(site, { visibility: 'internal', parent_id: top.id }, owner.token);
      const sibling = await createGroup(site, { parent_id: top.id }, owner.token);
      expect(await site.api(`/groups/${sibling.id}`, { method: 'PUT', body: { path: child.path }, as: owner.token })).toMatchObject({
        status: 400,
        body: { message: { path: ['has already been taken'] } },
      });
      expect(await site.api(`/groups/${child.id}`, { method: 'PUT', body: { visibility: 'public' }, as: owner.token })).toMatchObject({
        status: 400,
        body: { message: { visibility_level: ['public is not allowed since the parent group has a internal visibility.'] } },
      });
      expect(await site.api(`/groups/${top.id}`, { method: 'PUT', body: { visibility: 'private' }, as: owner.token })).toMatchObject({
        status: 400,
        body: { message: { visibility_level: ['private is not allowed since there are sub-groups with higher visibility.'] } },
      });
    });

    it('needs at least one parameter, visibility, and ownership or admin', async () => {
      expect(await site.api(`/groups/${publicGroup.id}`, { method: 'PUT', body: {}, as: owner.token })).toMatchObject({
        status: 400,
        body: { message: expect.stringContaining('at least one parameter must be provided') },
      });
      expect((await site.api(`/groups/${publicGroup.id}`, { method: 'PUT', body: { description: 'x' }, as: null })).status).toBe(401);
      expect((await site.api(`/groups/${privateGroup.id}`, { method: 'PUT', body: { description: 'x' }, as: stranger.token })).status).toBe(404);
      expect(await site.api(`/groups/${privateGroup.id}`, { method: 'PUT', body: { description: 'x' }, as: member.token })).toMatchObject({
        status: 403,
        body: { message: '403 Forbidden' },
      });
      expect((await site.api(`/groups/${publicGroup.id}`, { method: 'PUT', body: { description: 'x' }, as: stranger.token })).status).toBe(403);
      expect((await site.api(`/groups/${publicGroup.id}`, { method: 'PUT', body: { shared_runners_minutes_limit: 9 }, as: owner.token })).status).toBe(403);
      expect((await site.api(`/groups/${publicGroup.id}`, { method: 'PUT', body: { shared_runners_minutes_limit: 9 } })).body.shared_runners_minutes_limit).toBe(9);
    });
  });

  describe('DELETE /groups/:id', () => {
    it('removes the group with its subgroups, members and custom attributes', async () => {
      const top = await createGroup(site, {}, owner.token);
      const child = await createGroup(site, { parent_id: top.id }, owner.token);
      await site.api(`/groups/${child.id}/custom_attributes/k`, { method: 'PUT', body: { value: 'v' } });
      expect((await site.api(`/groups/${top.id}`, { method: 'DELETE', as: null })).status).toBe(401);
      expect((await site.api(`/groups/${top.id}`, { method: 'DELETE', as: stranger.token })).status).toBe(404);
      await site.api(`/groups/${top.id}/members`, { method: 'POST', body: { user_id: member.id, access_level: 40 }, as: owner.token });
      expect((await site.api(`/groups/${top.id}`, { method: 'DELETE', as: member.token })).status).toBe(403);
      expect(await site.api(`/groups/${top.id}`, { method: 'DELETE', as: owner.token })).toMatchObject({ status: 202, body: { message: '202 Accepted' } });
      expect((await site.api(`/groups/${top.id}`)).status).toBe(404);
      expect((await site.api(`/groups/${child.id}`)).status).toBe(404);
      const leftovers = site.site.db
        .prepare('SELECT (SELECT count(*) FROM group_members WHERE namespace_id IN (?, ?)) + (SELECT count(*) FROM group_custom_attributes WHERE group_id = ?)')
        .pluck()
        .get(top.id, child.id, child.id);
      expect(leftovers).toBe(0);
    });

    it('lets admins delete any group', async () => {
      const target = await createGroup(site, {}, owner.token);
      expect((await site.api(`/groups/${encodeURIComponent(target.full_path)}`, { method: 'DELETE' })).status).toBe(202);
    });
  });

  describe('with projects', () => {
    it('shows the group’s own and shared projects the caller may see in GroupDetail', async () => {
      const team = await createGroup(site, { visibility: 'public' }, owner.token);
      const open = await createProject(site, { name: 'Open One', namespace_id: team.id, visibility: 'public' }, owner.token);
      const closed = await createProject(site, { name: 'Closed One', namespace_id: team.id, visibility: 'private' }, owner.token);
      const elsewhere = await createProject(site, { name: 'Shared In', visibility: 'public' }, stranger.token);
      expect((await site.api(`/projects/${elsewhere.id}/share`, { method: 'POST', body: { group_id: team.id, group_access: 30 }, as: stranger.token })).status).toBe(201);

      const asOwner = await site.api(`/groups/${team.id}`, { as: owner.token });
      expect(asOwner.body.projects.map((p: { id: number }) => p.id).sort()).toEqual([open.id, closed.id].sort());
      expect(asOwner.body.projects[0]).toMatchObject({ namespace: expect.objectContaining({ id: team.id }) });
      expect(asOwner.body.shared_projects.map((p: { id: number }) => p.id)).toEqual([elsewhere.id]);
      const anonymous = await site.api(`/groups/${team.id}`, { as: null });
      expect(anonymous.body.projects.map((p: { id: number }) => p.id)).toEqual([open.id]);
    });

    it('keeps a group at least as open as its projects, and sums their sizes in statistics', async () => {
      const team = await createGroup(site, { visibility: 'internal' }, owner.token);
      await createProject(site, { namespace_id: team.id, visibility: 'internal', initialize_with_readme: true }, owner.token);
      expect(await site.api(`/groups/${team.id}`, { method: 'PUT', body: { visibility: 'private' }, as: owner.token })).toMatchObject({
        status: 400,
        body: { message: { visibility_level: ['private is not allowed since this group contains projects with higher visibility.'] } },
      });
      const stats = (await site.api(`/groups?statistics=true&search=${team.path}`)).body[0].statistics;
      expect(stats.repository_size).toBeGreaterThan(0);
      expect(stats.storage_size).toBeGreaterThanOrEqual(stats.repository_size);
    });

    it('may not shadow a project of its parent with a subgroup path', async () => {
      const team = await createGroup(site, {}, owner.token);
      const project = await createProject(site, { name: 'Shadowed', path: 'shadowed', namespace_id: team.id }, owner.token);
      expect(await site.api('/groups', { method: 'POST', body: { name: 'Shadow', path: project.path, parent_id: team.id }, as: owner.token })).toMatchObject({
        status: 400,
        body: { message: 'Failed to save group {:path=>["has already been taken"]}' },
      });
    });

    it('deletes the projects of the group and its subgroups, repositories included', async () => {
      const top = await createGroup(site, {}, owner.token);
      const child = await createGroup(site, { parent_id: top.id }, owner.token);
      const inTop = await createProject(site, { namespace_id: top.id }, owner.token);
      const inChild = await createProject(site, { namespace_id: child.id }, owner.token);
      const repositories = [inTop.id, inChild.id].map((id) => repositoryPath(site.dataDir, id));
      expect(repositories.every((repo) => existsSync(repo))).toBe(true);
      expect((await site.api(`/groups/${top.id}`, { method: 'DELETE', as: owner.token })).status).toBe(202);
      expect((await site.api(`/projects/${inTop.id}`)).status).toBe(404);
      expect((await site.api(`/projects/${inChild.id}`)).status).toBe(404);
      expect(repositories.some((repo) => existsSync(repo))).toBe(false);
      expect((await site.api(`/groups/${child.id}`)).status).toBe(404);
    });
  });

  describe('custom attributes', () => {
    it('are for admins only', async () => {
      expect((await site.api(`/groups/${publicGroup.id}/custom_attributes`, { as: owner.token })).status).toBe(403);
      expect((await site.api(`/groups/${publicGroup.id}/custom_attributes`, { as: null })).status).toBe(401);
      await site.api(`/groups/${publicGroup.id}/custom_attributes/a`, { method: 'PUT', body: { value: '1' } });
      expect((await site.api(`/groups/${publicGroup.id}/custom_attributes`)).body).toEqual([{ key: 'a', value: '1' }]);
      expect((await site.api(`/groups/${publicGroup.id}/custom_attributes/a`)).body).toEqual({ key: 'a', value: '1' });
      expect((await site.api(`/groups/${publicGroup.id}/custom_attributes/a`, { method: 'DELETE' })).status).toBe(204);
      expect((await site.api(`/groups/${publicGroup.id}/custom_attributes/a`)).status).toBe(404);
      expect((await site.api('/groups/424242/custom_attributes')).body).toEqual({ message: '404 Group Not Found' });
    });
  });

  describe('namespaces', () => {
    it('lists the caller’s namespace and groups, and resolves visible groups', async () => {
      const mine = await site.api('/namespaces?per_page=100', { as: member.token });
      expect(mine.body.map((ns: { full_path: string }) => ns.full_path)).toEqual(expect.arrayContaining([member.username, privateGroup.full_path]));
      expect(mine.body.find((ns: { kind: string }) => ns.kind === 'group')).toMatchObject({
        id: privateGroup.id,
        kind: 'group',
        full_path: privateGroup.full_path,
        parent_id: null,
        web_url: `${site.url}/groups/${privateGroup.full_path}`,
      });
      expect(mine.body[0].members_count_with_descendants).toBeUndefined();
      const searched = await site.api(`/namespaces?search=${privateGroup.path}`, { as: member.token });
      expect(searched.body.map((ns: { id: number }) => ns.id)).toEqual([privateGroup.id]);
      expect((await site.api(`/namespaces?search=${publicGroup.path}`, { as: member.token })).body).toEqual([]);

      expect((await site.api(`/namespaces/${privateGroup.id}`, { as: member.token })).body).toMatchObject({ id: privateGroup.id, kind: 'group' });
      expect((await site.api(`/namespaces/${privateGroup.id}`, { as: stranger.token })).status).toBe(404);
      expect((await site.api(`/namespaces/${encodeURIComponent(publicGroup.full_path)}`, { as: stranger.token })).body.id).toBe(publicGroup.id);

      const admin = await site.api(`/namespaces/${privateGroup.id}`);
      expect(admin.body.members_count_with_descendants).toBe(2);
    });
  });
});
