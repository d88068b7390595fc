import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGroup, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

function avatarForm(name = 'logo.png', content: Uint8Array<ArrayBuffer> | string = new Uint8Array(PNG)): FormData {
  const form = new FormData();
  form.set('avatar', new Blob([content], { type: 'image/png' }), name);
  return form;
}

/** PUT /groups/:id with a multipart avatar, and avatar="" removing a group's or a project's avatar. */
describe('group and project avatars', () => {
  let site: TestSite;
  let owner: TestUser;
  let developer: TestUser;

  beforeAll(async () => {
    site = await startSite();
    [owner, developer] = [await createUser(site), await createUser(site)];
  });
  afterAll(() => site.stop());

  it('stores a group avatar, serves it for a public group, and removes it with avatar=""', async () => {
    const group = await createGroup(site, { visibility: 'public' }, owner.token);
    const updated = await site.api(`/groups/${group.id}`, { method: 'PUT', form: avatarForm(), as: owner.token });
    expect(updated.status).toBe(200);
    const url = `${site.url}/uploads/-/system/group/avatar/${group.id}/logo.png`;
    expect(updated.body.avatar_url).toBe(url);
    expect((await site.api(`/groups/${group.id}`, { as: null })).body.avatar_url).toBe(url);
    expect((await site.api('/groups?all_available=true&per_page=100', { as: null })).body.find((g: { id: number }) => g.id === group.id).avatar_url).toBe(url);
    const served = await site.api(`/uploads/-/system/group/avatar/${group.id}/logo.png`, { as: null });
    expect(served.status).toBe(200);
    expect(served.text.slice(1, 4)).toBe('PNG');
    expect((await site.api(`/uploads/-/system/group/avatar/${group.id}/other.png`, { as: null })).status).toBe(404);

    // A new avatar replaces the old file; then avatar="" removes it (empty multipart text parts are dropped, GITLAB-NOTES W10).
    const replaced = await site.api(`/groups/${group.id}`, { method: 'PUT', form: avatarForm('badge.gif'), as: owner.token });
    expect(replaced.body.avatar_url).toBe(`${site.url}/uploads/-/system/group/avatar/${group.id}/badge.gif`);
    expect((await site.api(`/uploads/-/system/group/avatar/${group.id}/logo.png`, { as: null })).status).toBe(404);
    const removed = await site.api(`/groups/${group.id}`, { method: 'PUT', body: { avatar: '' }, as: owner.token });
    expect(removed.status).toBe(200);
    expect(removed.body.avatar_url).toBeNull();
    expect((await site.api(`/uploads/-/system/group/avatar/${group.id}/badge.gif`, { as: null })).status).toBe(404);
  });

  it('does not serve a private group`s avatar; refuses bad files (400), strangers (404) and non-owners (403)', async () => {
    const group = await createGroup(site, { visibility: 'private' }, owner.token);
    const set = await site.api(`/groups/${group.id}`, { method: 'PUT', form: avatarForm(), as: owner.token });
    expect(set.status).toBe(200);
    expect((await site.api(`/uploads/-/system/group/avatar/${group.id}/logo.png`, { as: null })).status).toBe(404);
    const text = await site.api(`/groups/${group.id}`, { method: 'PUT', form: avatarForm('notes.txt', 'text'), as: owner.token });
    expect(text.status).toBe(400);
    expect(text.body.message.avatar[0]).toMatch(/file format is not supported/);
    expect((await site.api(`/groups/${group.id}`, { method: 'PUT', form: avatarForm(), as: null })).status).toBe(401);
    expect((await site.api(`/groups/${group.id}`, { method: 'PUT', form: avatarForm(), as: developer.token })).status).toBe(404);
    await site.api(`/groups/${group.id}/members`, { method: 'POST', body: { user_id: developer.id, access_level: 30 }, as: owner.token });
    expect((await site.api(`/groups/${group.id}`, { method: 'PUT', form: avatarForm(), as: developer.token })).status).toBe(403);
  });

  it('removes a project avatar with avatar=""', async () => {
    const project = await createProject(site, { visibility: 'public' }, owner.token);
    const set = await site.api(`/projects/${project.id}`, { method: 'PUT', form: avatarForm(), as: owner.token });
    expect(set.body.avatar_url).toBe(`${site.url}/uploads/-/system/project/avatar/${project.id}/logo.png`);
    const removed = await site.api(`/projects/${project.id}`, { method: 'PUT', body: { avatar: '' }, as: owner.token });
    expect(removed.status).toBe(200);
    expect(removed.body.avatar_url).toBeNull();
    expect((await site.api(`/uploads/-/system/project/avatar/${project.id}/logo.png`, { as: null })).status).toBe(404);
  });
});
