import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGroup, createProject, createUser, type TestGroup, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

const MEMBER_KEYS = ['access_level', 'avatar_url', 'expires_at', 'id', 'name', 'state', 'username', 'web_url'];

describe('group members', () => {
  let site: TestSite;
  let owner: TestUser;
  let developer: TestUser;
  let outsider: TestUser;
  let group: TestGroup;
  const members = (path: string, options: Parameters<TestSite['api']>[1] = {}) => site.api(`/groups/${group.id}/members${path}`, options);

  beforeAll(async () => {
    site = await startSite();
    owner = await createUser(site, { name: 'Olive Owner' });
    developer = await createUser(site, { name: 'Devon Developer' });
    outsider = await createUser(site);
    group = await createGroup(site, { visibility: 'private' }, owner.token);
  });
  afterAll(() => site.stop());

  it('adds a member and answers 201 with the Member entity', async () => {
    const response = await members('', { method: 'POST', body: { user_id: developer.id, access_level: 30, expires_at: '2099-12-31' }, as: owner.token });
    expect(response.status).toBe(201);
    expect(Object.keys(response.body).sort()).toEqual(MEMBER_KEYS);
    expect(response.body).toEqual({
      id: developer.id,
      username: developer.username,
      name: 'Devon Developer',
      state: 'active',
      avatar_url: null,
      web_url: `${site.url}/${developer.username}`,
      access_level: 30,
      expires_at: '2099-12-31',
    });
  });

  it('accepts parameters in the query string with an empty body', async () => {
    const user = await createUser(site);
    const response = await members(`?user_id=${user.id}&access_level=10`, { method: 'POST', body: {}, as: owner.token });
    expect(response).toMatchObject({ status: 201, body: { id: user.id, access_level: 10, expires_at: null } });
    expect((await members(`/${user.id}`, { method: 'DELETE', as: owner.token })).status).toBe(204);
  });

  it('refuses duplicates, unknown users and invalid levels', async () => {
    expect(await members('', { method: 'POST', body: { user_id: developer.id, access_level: 30 }, as: owner.token })).toMatchObject({
      status: 409,
      body: { message: 'Member already exists' },
    });
    expect(await members('', { method: 'POST', body: { user_id: 424242, access_level: 30 }, as: owner.token })).toMatchObject({
      status: 404,
      body: { message: '404 User Not Found' },
    });
    expect(await members('', { method: 'POST', body: { user_id: outsider.id, access_level: 35 }, as: owner.token })).toMatchObject({
      status: 400,
      body: { message: 'access_level does not have a valid value' },
    });
    expect(await members('', { method: 'POST', body: { access_level: 30 }, as: owner.token })).toMatchObject({ status: 400, body: { message: 'user_id is missing' } });
    expect(await members('', { method: 'POST', body: { user_id: outsider.id }, as: owner.token })).toMatchObject({
      status: 400,
      body: { message: 'access_level is missing' },
    });
    expect((await members('', { method: 'POST', body: { user_id: outsider.id, access_level: 30, expires_at: 'soon' }, as: owner.token })).status).toBe(400);
  });

  it('lists members with a query filter and pagination', async () => {
    const list = await members('', { as: developer.token });
    expect(list.status).toBe(200);
    expect(list.body.map((m: { id: number }) => m.id)).toEqual([owner.id, developer.id]);
    expect(list.headers['x-total']).toBe('2');
    expect((await members('?query=devon', { as: developer.token })).body.map((m: { id: number }) => m.id)).toEqual([developer.id]);
    expect((await members(`?query=${owner.username.toUpperCase()}`, { as: developer.token })).body.map((m: { id: number }) => m.id)).toEqual([owner.id]);
    const paged = await members('?per_page=1&page=2', { as: developer.token });
    expect(paged.body.map((m: { id: number }) => m.id)).toEqual([developer.id]);
    expect(paged.headers['x-total-pages']).toBe('2');
    expect(paged.headers['x-prev-page']).toBe('1');
  });

  it('gets one member, 404 `Member` for a non-member', async () => {
    expect((await members(`/${developer.id}`, { as: developer.token })).body).toMatchObject({ id: developer.id, access_level: 30 });
    expect(await members(`/${outsider.id}`)).toMatchObject({ status: 404, body: { message: '404 Member Not Found' } });
    expect((await members('/abc')).status).toBe(400);
  });

  it('hides a private group from non-members and anonymous callers', async () => {
    expect(await members('', { as: outsider.token })).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect((await members('', { as: null })).status).toBe(401);
    expect((await site.api(`/groups/${encodeURIComponent(group.full_path)}/members`)).status).toBe(200);
  });

  it('lets anyone who sees a public group list its members, and only owners write', async () => {
    const open = await createGroup(site, { visibility: 'public' }, owner.token);
    expect((await site.api(`/groups/${open.id}/members`, { as: outsider.token })).body.map((m: { id: number }) => m.id)).toEqual([owner.id]);
    expect(
      await site.api(`/groups/${open.id}/members`, { method: 'POST', body: { user_id: outsider.id, access_level: 10 }, as: outsider.token }),
    ).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    await site.api(`/groups/${open.id}/members`, { method: 'POST', body: { user_id: developer.id, access_level: 40 }, as: owner.token });
    // A maintainer of a group does not administer its members.
    expect(
      (await site.api(`/groups/${open.id}/members`, { method: 'POST', body: { user_id: outsider.id, access_level: 10 }, as: developer.token })).status,
    ).toBe(403);
    expect((await site.api(`/groups/${open.id}/members/${owner.id}`, { method: 'PUT', body: { access_level: 10 }, as: developer.token })).status).toBe(403);
    expect((await site.api(`/groups/${open.id}/members/${owner.id}`, { method: 'DELETE', as: developer.token })).status).toBe(403);
  });

  it('updates the level and expiry', async () => {
    const response = await members(`/${developer.id}`, { method: 'PUT', body: { access_level: 40 }, as: owner.token });
    expect(response).toMatchObject({ status: 200, body: { id: developer.id, access_level: 40, expires_at: '2099-12-31' } });
    expect((await members(`/${developer.id}`, { method: 'PUT', body: { access_level: 40, expires_at: '' }, as: owner.token })).body.expires_at).toBeNull();
    expect(await members(`/${outsider.id}`, { method: 'PUT', body: { access_level: 40 }, as: owner.token })).toMatchObject({
      status: 404,
      body: { message: '404 Member Not Found' },
    });
    expect((await members(`/${developer.id}`, { method: 'PUT', body: {}, as: owner.token })).body).toEqual({ message: 'access_level is missing' });
  });

  it('keeps the last owner', async () => {
    expect(await members(`/${owner.id}`, { method: 'DELETE', as: owner.token })).toMatchObject({
      status: 403,
      body: { message: '403 Forbidden - A group must keep at least one owner' },
    });
    expect((await members(`/${owner.id}`, { method: 'PUT', body: { access_level: 40 }, as: owner.token })).status).toBe(403);
    // An admin is bound by the rule too; with a second owner the first may step down.
    expect((await members(`/${owner.id}`, { method: 'DELETE' })).status).toBe(403);
    await members(`/${developer.id}`, { method: 'PUT', body: { access_level: 50 }, as: owner.token });
    expect((await members(`/${owner.id}`, { method: 'PUT', body: { access_level: 40 }, as: owner.token })).status).toBe(200);
    expect((await members(`/${owner.id}`, { method: 'PUT', body: { access_level: 50 }, as: developer.token })).status).toBe(200);
    expect((await members(`/${developer.id}`, { method: 'PUT', body: { access_level: 30 }, as: owner.token })).status).toBe(200);
  });

  it('counts owners of a parent group as owners of a subgroup', async () => {
    const child = await createGroup(site, { parent_id: group.id }, owner.token);
    // The creator is the subgroup's direct owner; the parent's owner still owns it once they leave.
    expect((await site.api(`/groups/${child.id}/members/${owner.id}`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect((await site.api(`/groups/${child.id}/members`, { as: owner.token })).body).toEqual([]);
    expect((await site.api(`/groups/${child.id}`, { method: 'PUT', body: { description: 'still mine' }, as: owner.token })).status).toBe(200);
  });

  it('lists inherited members with members/all', async () => {
    const child = await createGroup(site, { parent_id: group.id }, owner.token);
    await site.api(`/groups/${child.id}/members`, { method: 'POST', body: { user_id: outsider.id, access_level: 20 }, as: owner.token });
    const all = await site.api(`/groups/${child.id}/members/all`, { as: outsider.token });
    expect(all.status).toBe(200);
    const levels = Object.fromEntries(all.body.map((m: { id: number; access_level: number }) => [m.id, m.access_level]));
    expect(levels).toEqual({ [owner.id]: 50, [developer.id]: 30, [outsider.id]: 20 });
    expect((await site.api(`/groups/${child.id}/members/all?query=devon`, { as: outsider.token })).body.map((m: { id: number }) => m.id)).toEqual([developer.id]);
  });

  it('lets a member leave and removes members with 204', async () => {
    const leaver = await createUser(site);
    await members('', { method: 'POST', body: { user_id: leaver.id, access_level: 10 }, as: owner.token });
    expect((await members(`/${developer.id}`, { method: 'DELETE', as: leaver.token })).status).toBe(403);
    expect((await members(`/${leaver.id}`, { method: 'DELETE', as: leaver.token })).status).toBe(204);
    expect((await members(`/${leaver.id}`, { as: owner.token })).status).toBe(404);
    expect(await members(`/${leaver.id}`, { method: 'DELETE', as: owner.token })).toMatchObject({ status: 404, body: { message: '404 Member Not Found' } });
  });

  it('answers 412 to a delete whose If-Unmodified-Since is older than the membership (SPEC "Errors")', async () => {
    const member = await createUser(site);
    await members('', { method: 'POST', body: { user_id: member.id, access_level: 10 }, as: owner.token });
    const before = new Date(Date.now() - 3_600_000).toUTCString();
    const stale = await members(`/${member.id}`, { method: 'DELETE', headers: { 'if-unmodified-since': before }, as: owner.token });
    expect(stale).toMatchObject({ status: 412, body: { message: '412 Precondition Failed' } });
    expect((await members(`/${member.id}`, { as: owner.token })).status).toBe(200);
    // A date that is not an HTTP date is ignored, as GitLab ignores it; a later one lets the delete through.
    const after = new Date(Date.now() + 3_600_000).toUTCString();
    expect((await members(`/${member.id}`, { method: 'DELETE', headers: { 'if-unmodified-since': 'yesterday' }, as: owner.token })).status).toBe(204);
    await members('', { method: 'POST', body: { user_id: member.id, access_level: 10 }, as: owner.token });
    expect((await members(`/${member.id}`, { method: 'DELETE', headers: { 'if-unmodified-since': after }, as: owner.token })).status).toBe(204);
  });

  it('grants access through membership: a new member sees the private group', async () => {
    const viewer = await createUser(site);
    expect((await site.api(`/groups/${group.id}`, { as: viewer.token })).status).toBe(404);
    await members('', { method: 'POST', body: { user_id: viewer.id, access_level: 10 }, as: owner.token });
    expect((await site.api(`/groups/${group.id}`, { as: viewer.token })).status).toBe(200);
    await members(`/${viewer.id}`, { method: 'DELETE', as: owner.token });
    expect((await site.api(`/groups/${group.id}`, { as: viewer.token })).status).toBe(404);
  });
});

describe('project members', () => {
  let site: TestSite;
  let owner: TestUser;
  let maintainer: TestUser;
  let developer: TestUser;
  let outsider: TestUser;
  let project: { id: number; path_with_namespace: string };

  beforeAll(async () => {
    site = await startSite();
    owner = await createUser(site);
    maintainer = await createUser(site, { name: 'Mae Maintainer' });
    developer = await createUser(site);
    outsider = await createUser(site);
    project = await createProject(site, { visibility: 'private' }, owner.token);
  });
  afterAll(() => site.stop());

  it('covers add, list, get, update and remove', async () => {
    const base = `/projects/${project.id}/members`;
    const added = await site.api(base, { method: 'POST', body: { user_id: maintainer.id, access_level: 40 }, as: owner.token });
    expect(added).toMatchObject({ status: 201, body: { id: maintainer.id, access_level: 40, expires_at: null } });
    expect(Object.keys(added.body).sort()).toEqual(MEMBER_KEYS);
    // Maintainers administer project members.
    expect((await site.api(base, { method: 'POST', body: { user_id: developer.id, access_level: 30 }, as: maintainer.token })).status).toBe(201);
    expect((await site.api(base, { method: 'POST', body: { user_id: developer.id, access_level: 30 }, as: maintainer.token })).status).toBe(409);

    const byPath = await site.api(`/projects/${encodeURIComponent(project.path_with_namespace)}/members?query=mae`, { as: developer.token });
    expect(byPath.body.map((m: { id: number }) => m.id)).toEqual([maintainer.id]);
    expect((await site.api(`${base}/${developer.id}`, { as: developer.token })).body).toMatchObject({ id: developer.id, access_level: 30 });

    expect((await site.api(`${base}/${developer.id}`, { method: 'PUT', body: { access_level: 20, expires_at: '2099-01-01' }, as: maintainer.token })).body).toMatchObject({
      access_level: 20,
      expires_at: '2099-01-01',
    });
    expect((await site.api(`${base}/${developer.id}`, { method: 'PUT', body: { access_level: 30 }, as: developer.token })).status).toBe(403);
    expect((await site.api(`${base}/${developer.id}`, { method: 'DELETE', as: maintainer.token })).status).toBe(204);
    expect((await site.api(`${base}/${developer.id}`, { method: 'DELETE', as: maintainer.token })).body).toEqual({ message: '404 Member Not Found' });
  });

  it('allows no owner level on projects', async () => {
    expect(
      await site.api(`/projects/${project.id}/members`, { method: 'POST', body: { user_id: outsider.id, access_level: 50 }, as: owner.token }),
    ).toMatchObject({ status: 400, body: { message: 'access_level does not have a valid value' } });
    expect(
      (await site.api(`/projects/${project.id}/members/${maintainer.id}`, { method: 'PUT', body: { access_level: 50 }, as: owner.token })).status,
    ).toBe(400);
  });

  it('hides private projects (404) and refuses writes below maintainer (403)', async () => {
    expect(await site.api(`/projects/${project.id}/members`, { as: outsider.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect((await site.api(`/projects/${project.id}/members`, { as: null })).status).toBe(401);
    const open = await createProject(site, { visibility: 'public' }, owner.token);
    expect((await site.api(`/projects/${open.id}/members`, { as: outsider.token })).status).toBe(200);
    expect(
      (await site.api(`/projects/${open.id}/members`, { method: 'POST', body: { user_id: outsider.id, access_level: 10 }, as: outsider.token })).status,
    ).toBe(403);
    expect((await site.api('/projects/424242/members')).status).toBe(404);
  });

  it('grants access: a new member sees the private project', async () => {
    expect((await site.api(`/projects/${project.id}`, { as: outsider.token })).status).toBe(404);
    await site.api(`/projects/${project.id}/members`, { method: 'POST', body: { user_id: outsider.id, access_level: 10 }, as: owner.token });
    expect((await site.api(`/projects/${project.id}`, { as: outsider.token })).status).toBe(200);
    await site.api(`/projects/${project.id}/members/${outsider.id}`, { method: 'DELETE', as: owner.token });
  });

  it('lists group members inherited by a group project with members/all, and honours membership_lock', async () => {
    const team = await createGroup(site, {}, owner.token);
    await site.api(`/groups/${team.id}/members`, { method: 'POST', body: { user_id: developer.id, access_level: 30 }, as: owner.token });
    const inGroup = await createProject(site, { namespace_id: team.id }, owner.token);
    await site.api(`/projects/${inGroup.id}/members`, { method: 'POST', body: { user_id: maintainer.id, access_level: 40 }, as: owner.token });
    const all = await site.api(`/projects/${inGroup.id}/members/all`, { as: developer.token });
    const levels = Object.fromEntries(all.body.map((m: { id: number; access_level: number }) => [m.id, m.access_level]));
    expect(levels).toEqual({ [owner.id]: 50, [developer.id]: 30, [maintainer.id]: 40 });
    const direct = await site.api(`/projects/${inGroup.id}/members`, { as: developer.token });
    expect(direct.body.map((m: { id: number }) => m.id)).not.toContain(developer.id);

    await site.api(`/groups/${team.id}`, { method: 'PUT', body: { membership_lock: true }, as: owner.token });
    expect(
      await site.api(`/projects/${inGroup.id}/members`, { method: 'POST', body: { user_id: outsider.id, access_level: 10 }, as: owner.token }),
    ).toMatchObject({ status: 405, body: { message: '405 Method Not Allowed' } });
  });
});
