import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createGroup, createProject, createUser, tokenFor, type TestGroup, type TestUser } from '../helpers/factories.js';
import { gitClient, remoteUrl } from '../helpers/git.js';
import { startSite, type TestSite } from '../helpers/site.js';

/** Settings people set (issue 17, item 6): badges, notification settings, user status, identities. */
let site: TestSite;
let owner: TestUser;
let developer: TestUser;
let outsider: TestUser;
let group: TestGroup;
let subgroup: TestGroup;
let project: any;
let scratch: string;

beforeAll(async () => {
  site = await startSite();
  scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-settings-'));
  [owner, developer, outsider] = await Promise.all([createUser(site), createUser(site), createUser(site)]);
  group = await createGroup(site, { visibility: 'private' });
  subgroup = await createGroup(site, { parent_id: group.id, visibility: 'private' });
  await addMember(site, 'groups', group.id, owner, 50);
  project = await createProject(site, { namespace_id: subgroup.id, visibility: 'private' });
  await addMember(site, 'projects', project.id, developer, 30);
});
afterAll(async () => {
  await site.stop();
  await rm(scratch, { recursive: true, force: true });
});

describe('badges', () => {
  const badges = (kind: 'projects' | 'groups', id: number) => `/${kind}/${id}/badges`;

  it('adds project and group badges, lists a project’s with its groups’ (kind project/group) and renders the placeholders', async () => {
    const git = gitClient(scratch);
    const work = path.join(scratch, 'work');
    await git(['init', '--quiet', '-b', 'master', work]);
    await writeFile(path.join(work, 'README.md'), 'hello\n');
    await git(['add', '.'], work);
    await git(['commit', '--quiet', '-m', 'first'], work);
    const sha = (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
    await git(['push', '--quiet', remoteUrl(site.url, project, owner), 'HEAD:refs/heads/master'], work);

    const groupBadge = await site.api(badges('groups', group.id), {
      method: 'POST',
      as: owner.token,
      body: { link_url: 'https://ci.example.com/%{project_path}', image_url: 'https://ci.example.com/%{project_id}/badge.svg', name: 'ci' },
    });
    expect(groupBadge.status).toBe(201);
    expect(groupBadge.body).toEqual({
      id: expect.any(Number),
      name: 'ci',
      link_url: 'https://ci.example.com/%{project_path}',
      image_url: 'https://ci.example.com/%{project_id}/badge.svg',
      // The group has no project of its own to stand in for the placeholders: the urls stay as written.
      rendered_link_url: 'https://ci.example.com/%{project_path}',
      rendered_image_url: 'https://ci.example.com/%{project_id}/badge.svg',
      kind: 'group',
    });
    const created = await site.api(badges('projects', project.id), {
      method: 'POST',
      as: owner.token,
      body: { link_url: 'https://example.com/%{project_path}/-/commits/%{default_branch}', image_url: 'https://example.com/%{commit_sha}.svg' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: null,
      kind: 'project',
      rendered_link_url: `https://example.com/${project.path_with_namespace}/-/commits/master`,
      rendered_image_url: `https://example.com/${sha}.svg`,
    });

    const list = await site.api(badges('projects', project.id), { as: developer.token });
    expect(list.status).toBe(200);
    expect(list.headers['x-total']).toBe('2');
    expect(list.body.map((b: any) => [b.id, b.kind])).toEqual([
      [groupBadge.body.id, 'group'],
      [created.body.id, 'project'],
    ]);
    // Group badges render with the project that lists them.
    expect(list.body[0]).toMatchObject({ rendered_link_url: `https://ci.example.com/${project.path_with_namespace}`, rendered_image_url: `https://ci.example.com/${project.id}/badge.svg` });
    expect((await site.api(`${badges('projects', project.id)}?name=ci`, { as: developer.token })).body.map((b: any) => b.id)).toEqual([groupBadge.body.id]);
    expect((await site.api(`${badges('projects', project.id)}/${groupBadge.body.id}`, { as: developer.token })).body.kind).toBe('group');

    // A group lists its own badges only, rendered with its newest project the caller may see.
    const groupList = await site.api(badges('groups', group.id), { as: owner.token });
    expect(groupList.body.map((b: any) => b.id)).toEqual([groupBadge.body.id]);
    expect((await site.api(badges('groups', subgroup.id), { as: owner.token })).body).toEqual([]);
    const subgroupBadge = await site.api(badges('groups', subgroup.id), { method: 'POST', as: owner.token, body: { link_url: 'https://e.test/%{project_path}', image_url: 'https://e.test/b.svg' } });
    expect(subgroupBadge.body).toMatchObject({ kind: 'group', rendered_link_url: `https://e.test/${project.path_with_namespace}` });
    expect((await site.api(`${badges('groups', subgroup.id)}/${subgroupBadge.body.id}`, { method: 'DELETE', as: owner.token })).status).toBe(204);

    const edited = await site.api(`${badges('projects', project.id)}/${created.body.id}`, { method: 'PUT', as: owner.token, body: { image_url: 'https://example.com/%{project_id}.png' } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ link_url: created.body.link_url, rendered_image_url: `https://example.com/${project.id}.png` });

    const render = await site.api(`${badges('projects', project.id)}/render?link_url=${encodeURIComponent('http://x.test/%{default_branch}')}&image_url=${encodeURIComponent('http://x.test/i.svg')}`, { as: owner.token });
    expect(render.status).toBe(200);
    expect(render.body).toEqual({ name: null, link_url: 'http://x.test/%{default_branch}', image_url: 'http://x.test/i.svg', rendered_link_url: 'http://x.test/master', rendered_image_url: 'http://x.test/i.svg' });
    expect((await site.api(badges('projects', project.id), { as: owner.token })).body).toHaveLength(2);

    // A project's maintainers never edit or delete their group's badge.
    expect((await site.api(`${badges('projects', project.id)}/${groupBadge.body.id}`, { method: 'DELETE', as: owner.token })).status).toBe(404);
    expect((await site.api(`${badges('projects', project.id)}/${created.body.id}`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect((await site.api(`${badges('projects', project.id)}/${created.body.id}`, { as: owner.token })).body).toEqual({ message: '404 Not found' });
    expect((await site.api(`${badges('groups', group.id)}/${groupBadge.body.id}`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect((await site.api(badges('projects', project.id), { as: owner.token })).body).toEqual([]);
  });

  it('answers the error rows: 400 missing and invalid urls or ids, 401 anonymous writes, 403 below maintainer, 404 invisible sources and other sources’ badges', async () => {
    const url = badges('projects', project.id);
    const good = { link_url: 'https://example.com', image_url: 'https://example.com/b.svg' };
    expect(await site.api(url, { method: 'POST', as: owner.token, body: { image_url: good.image_url } })).toMatchObject({ status: 400, body: { message: 'link_url is missing' } });
    expect(await site.api(url, { method: 'POST', as: owner.token, body: { link_url: 'ftp://example.com', image_url: 'not a url' } })).toMatchObject({
      status: 400,
      body: { message: { link_url: ['must be a valid URL'], image_url: ['must be a valid URL'] } },
    });
    expect(await site.api(`${url}/render?link_url=x`, { as: owner.token })).toMatchObject({ status: 400, body: { message: 'image_url is missing' } });
    expect(await site.api(`${url}/render?link_url=javascript:alert(1)&image_url=https://e.com`, { as: owner.token })).toMatchObject({
      status: 400,
      body: { message: { link_url: ['must be a valid URL'] } },
    });
    expect(await site.api(`${url}/abc`, { as: owner.token })).toMatchObject({ status: 400, body: { message: 'badge_id is invalid' } });
    expect((await site.api(url, { method: 'POST', as: null, body: good })).status).toBe(401);
    expect((await site.api(`${url}/render?link_url=https://e.com&image_url=https://e.com`, { as: null })).status).toBe(401);
    expect(await site.api(url, { method: 'POST', as: developer.token, body: good })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect((await site.api(`${url}/render?link_url=https://e.com&image_url=https://e.com`, { as: developer.token })).status).toBe(403);
    expect(await site.api(url, { as: outsider.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await site.api(url, { as: null })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await site.api(badges('groups', group.id), { as: outsider.token })).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });

    const made = await site.api(url, { method: 'POST', as: owner.token, body: good });
    expect(made.status).toBe(201);
    expect((await site.api(`${url}/${made.body.id}`, { method: 'PUT', as: developer.token, body: { name: 'x' } })).status).toBe(403);
    expect(await site.api(`${url}/${made.body.id}`, { method: 'PUT', as: owner.token, body: { link_url: 'nope' } })).toMatchObject({ status: 400, body: { message: { link_url: ['must be a valid URL'] } } });
    expect((await site.api(`${badges('groups', group.id)}/${made.body.id}`, { as: owner.token })).status).toBe(404);
    expect((await site.api(`${url}/999999`, { method: 'PUT', as: owner.token, body: { name: 'x' } })).status).toBe(404);
    // Group badges are the group owners’: a developer of the group's project may not add one.
    const groupDev = await site.api(badges('groups', subgroup.id), { method: 'POST', as: developer.token, body: good });
    expect(groupDev.status).toBe(403);

    const open = await createProject(site, { visibility: 'public' });
    expect((await site.api(badges('projects', open.id), { as: null })).status).toBe(200);
  });
});

describe('notification settings', () => {
  it('reads the defaults without writing a row, then changes the global level, the custom events and the notification email', async () => {
    const user = await createUser(site);
    const rows = () => site.site.db.prepare('SELECT count(*) FROM notification_settings WHERE user_id = ?').pluck().get(user.id);
    expect(await site.api('/notification_settings', { as: user.token })).toMatchObject({ status: 200, body: { level: 'participating', notification_email: user.email } });
    expect((await site.api(`/projects/${project.id}/notification_settings`, { as: owner.token })).body).toEqual({ level: 'global' });
    expect((await site.api(`/groups/${group.id}/notification_settings`, { as: owner.token })).body).toEqual({ level: 'global' });
    expect(rows()).toBe(0);

    const custom = await site.api('/notification_settings', { method: 'PUT', as: user.token, body: { level: 'custom', new_note: true, close_issue: 'true' } });
    expect(custom.status).toBe(200);
    expect(custom.body).toEqual({
      level: 'custom',
      events: {
        new_note: true,
        new_issue: false,
        reopen_issue: false,
        close_issue: true,
        reassign_issue: false,
        new_merge_request: false,
        reopen_merge_request: false,
        close_merge_request: false,
        reassign_merge_request: false,
        merge_merge_request: false,
        failed_pipeline: false,
        success_pipeline: false,
      },
      notification_email: user.email,
    });
    expect((await site.api('/notification_settings', { method: 'PUT', as: user.token, body: { new_issue: true } })).body.events).toMatchObject({ new_note: true, new_issue: true });
    expect((await site.api('/notification_settings', { method: 'PUT', as: user.token, body: { level: 'watch' } })).body).toEqual({ level: 'watch', notification_email: user.email });
    expect(rows()).toBe(1);

    // A secondary email counts once confirmed; anything else is not the user's.
    const added = await site.api(`/users/${user.id}/emails`, { method: 'POST', body: { email: `second-${user.username}@example.com` } });
    expect(added.status).toBe(201);
    const unconfirmed = await site.api('/notification_settings', { method: 'PUT', as: user.token, body: { notification_email: added.body.email } });
    expect(unconfirmed).toMatchObject({ status: 400, body: { message: { notification_email: ['is not an email you own'] } } });
    site.site.db.prepare('UPDATE emails SET confirmed_at = ? WHERE id = ?').run(new Date().toISOString(), added.body.id);
    const confirmed = await site.api('/notification_settings', { method: 'PUT', as: user.token, body: { notification_email: added.body.email.toUpperCase() } });
    expect(confirmed.body).toEqual({ level: 'watch', notification_email: added.body.email });
    expect((await site.api('/notification_settings', { as: user.token })).body.notification_email).toBe(added.body.email);
    expect((await site.api('/notification_settings', { method: 'PUT', as: user.token, body: { notification_email: owner.email } })).status).toBe(400);
    expect((await site.api('/notification_settings', { method: 'PUT', as: user.token, body: { notification_email: '' } })).body.notification_email).toBe(user.email);
  });

  it('keeps one setting per project and per group, apart from the global one', async () => {
    const projectUrl = `/projects/${project.id}/notification_settings`;
    expect((await site.api(projectUrl, { method: 'PUT', as: developer.token, body: { level: 'mention' } })).body).toEqual({ level: 'mention' });
    expect((await site.api(`/projects/${encodeURIComponent(project.path_with_namespace)}/notification_settings`, { as: developer.token })).body).toEqual({ level: 'mention' });
    expect((await site.api(projectUrl, { method: 'PUT', as: developer.token, body: { level: 'custom', merge_merge_request: true } })).body.events.merge_merge_request).toBe(true);
    // The project's permissions show the member's level as GitLab's enum (5 custom), the default 3 (global) for others.
    expect((await site.api(`/projects/${project.id}`, { as: developer.token })).body.permissions.project_access).toEqual({ access_level: 30, notification_level: 5 });
    expect((await site.api(`/projects?membership=true`, { as: developer.token })).body.find((p: any) => p.id === project.id).permissions.project_access.notification_level).toBe(5);
    expect((await site.api(projectUrl, { as: owner.token })).body).toEqual({ level: 'global' });
    expect((await site.api(`/projects/${project.id}`, { as: owner.token })).body.permissions.project_access).toBeNull();
    expect((await site.api(`/groups/${group.id}/notification_settings`, { method: 'PUT', as: owner.token, body: { level: 'disabled' } })).body).toEqual({ level: 'disabled' });
    expect((await site.api('/notification_settings', { as: owner.token })).body.level).toBe('participating');
    // notification_email belongs to the global setting only: ignored on a source.
    expect((await site.api(`/groups/${group.id}/notification_settings`, { method: 'PUT', as: owner.token, body: { notification_email: 'x@y.z' } })).body).toEqual({ level: 'disabled' });
  });

  it('answers the error rows: 401 anonymous, 400 unknown level or bad boolean, 404 invisible sources', async () => {
    expect((await site.api('/notification_settings', { as: null })).status).toBe(401);
    expect((await site.api(`/projects/${project.id}/notification_settings`, { as: null })).status).toBe(401);
    expect((await site.api(`/groups/${group.id}/notification_settings`, { method: 'PUT', as: null, body: { level: 'watch' } })).status).toBe(401);
    expect(await site.api('/notification_settings', { method: 'PUT', as: owner.token, body: { level: 'loud' } })).toMatchObject({ status: 400, body: { message: "'loud' is not a valid level" } });
    expect(await site.api(`/projects/${project.id}/notification_settings`, { method: 'PUT', as: developer.token, body: { new_note: 'maybe' } })).toMatchObject({
      status: 400,
      body: { message: 'new_note is invalid' },
    });
    expect(await site.api(`/projects/${project.id}/notification_settings`, { as: outsider.token })).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    expect(await site.api(`/groups/${group.id}/notification_settings`, { method: 'PUT', as: outsider.token, body: { level: 'watch' } })).toMatchObject({
      status: 404,
      body: { message: '404 Group Not Found' },
    });
  });
});

describe('user status', () => {
  it('sets, shows (by id and username) and clears the caller’s status, rendering message_html', async () => {
    const user = await createUser(site);
    const empty = { emoji: null, message: null, message_html: null };
    expect((await site.api('/user/status', { as: user.token })).body).toEqual(empty);
    const set = await site.api('/user/status', { method: 'PUT', as: user.token, body: { emoji: 'coffee', message: 'Back at <b>noon</b> :smile:' } });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({
      emoji: 'coffee',
      message: 'Back at <b>noon</b> :smile:',
      message_html: 'Back at &lt;b&gt;noon&lt;/b&gt; <gl-emoji title="smile" data-name="smile">😄</gl-emoji>',
    });
    expect((await site.api(`/users/${user.id}/status`, { as: null })).body).toEqual(set.body);
    expect((await site.api(`/users/${user.username}/status`, { as: outsider.token })).body.emoji).toBe('coffee');
    expect((await site.api('/user/status', { method: 'PUT', as: user.token, body: { message: 'In a meeting' } })).body).toEqual({
      emoji: 'speech_balloon',
      message: 'In a meeting',
      message_html: 'In a meeting',
    });
    expect((await site.api('/user/status', { method: 'PUT', as: user.token, body: { emoji: 'palm_tree' } })).body).toEqual({ emoji: 'palm_tree', message: null, message_html: null });
    expect((await site.api('/user/status', { method: 'PUT', as: user.token, body: { emoji: '', message: '' } })).body).toEqual(empty);
    expect((await site.api(`/users/${user.id}/status`)).body).toEqual(empty);
    expect(site.site.db.prepare('SELECT count(*) FROM user_statuses WHERE user_id = ?').pluck().get(user.id)).toBe(0);
  });

  it('answers the error rows: 401 anonymous, 400 unknown emoji or long message, 404 unknown user', async () => {
    expect((await site.api('/user/status', { as: null })).status).toBe(401);
    expect((await site.api('/user/status', { method: 'PUT', as: null, body: { emoji: 'coffee' } })).status).toBe(401);
    // A read_user token reads the caller's status but may not set it.
    const readOnly = tokenFor(site, owner.id, ['read_user']);
    expect((await site.api('/user/status', { as: readOnly })).status).toBe(200);
    expect(await site.api('/user/status', { method: 'PUT', as: readOnly, body: { emoji: 'coffee' } })).toMatchObject({ status: 403, body: { error: 'insufficient_scope' } });
    expect(await site.api('/user/status', { method: 'PUT', as: owner.token, body: { emoji: 'not_an_emoji_at_all' } })).toMatchObject({
      status: 400,
      body: { message: { emoji: ['is not included in the list'] } },
    });
    expect(await site.api('/user/status', { method: 'PUT', as: owner.token, body: { message: 'x'.repeat(101) } })).toMatchObject({
      status: 400,
      body: { message: { message: ['is too long (maximum is 100 characters)'] } },
    });
    expect((await site.api('/user/status', { method: 'PUT', as: owner.token, body: { message: 'é'.repeat(100) } })).status).toBe(200);
    expect(await site.api('/users/999999/status')).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    expect(await site.api('/users/no-such-user-here/status')).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
  });
});

describe('DELETE /users/:id/identities/:provider', () => {
  it('removes the identity (204), then 404 Identity; 404 User, 403 non-admins, 401 anonymous, 400 a bad id', async () => {
    const user = await createUser(site);
    expect((await site.api(`/users/${user.id}`, { method: 'PUT', body: { provider: 'ldapmain', extern_uid: `uid=${user.username},dc=example,dc=org` } })).status).toBe(200);
    expect((await site.api(`/users/${user.id}`)).body.identities).toEqual([{ provider: 'ldapmain', extern_uid: `uid=${user.username},dc=example,dc=org` }]);
    expect((await site.api(`/users/${user.id}/identities/ldapmain`, { as: null, method: 'DELETE' })).status).toBe(401);
    expect(await site.api(`/users/${user.id}/identities/ldapmain`, { as: user.token, method: 'DELETE' })).toMatchObject({ status: 403 });
    expect((await site.api(`/users/${user.id}/identities/ldapmain`, { method: 'DELETE' })).status).toBe(204);
    expect((await site.api(`/users/${user.id}`)).body.identities).toEqual([]);
    expect(await site.api(`/users/${user.id}/identities/ldapmain`, { method: 'DELETE' })).toMatchObject({ status: 404, body: { message: '404 Identity Not Found' } });
    expect(await site.api('/users/999999/identities/ldapmain', { method: 'DELETE' })).toMatchObject({ status: 404, body: { message: '404 User Not Found' } });
    expect(await site.api('/users/abc/identities/ldapmain', { method: 'DELETE' })).toMatchObject({ status: 400, body: { message: 'id is invalid' } });
  });
});
