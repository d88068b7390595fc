import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createGroup, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { startSite, type TestSite } from '../helpers/site.js';

/** The rest of the index (issue 26, item 9): broadcast messages, settings, access requests, statistics, license, templates, markdown. */
let site: TestSite;
let alice: TestUser;
let bob: TestUser;

beforeAll(async () => {
  site = await startSite();
  [alice, bob] = await Promise.all([createUser(site), createUser(site)]);
});
afterAll(() => site.stop());

describe('broadcast messages', () => {
  it('admins create, change and delete; anyone reads, active computed from the times', async () => {
    const created = await site.api('/broadcast_messages', {
      method: 'POST',
      body: { message: 'Maintenance tonight', color: '#E75E40', font: '#FFFFFF', target_access_levels: [30, 10], target_path: '*/welcome', broadcast_type: 'notification', dismissable: true },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      message: 'Maintenance tonight',
      color: '#E75E40',
      font: '#FFFFFF',
      target_access_levels: [10, 30],
      target_path: '*/welcome',
      broadcast_type: 'notification',
      dismissable: true,
      active: true,
    });
    expect(Date.parse(created.body.ends_at) - Date.parse(created.body.starts_at)).toBe(3_600_000);
    const id = created.body.id;

    const future = await site.api('/broadcast_messages', { method: 'POST', body: { message: 'Later', starts_at: '2999-01-01T00:00:00Z', ends_at: '2999-01-02T00:00:00Z' } });
    expect(future.body).toMatchObject({ active: false, broadcast_type: 'banner', dismissable: null, target_access_levels: [] });

    const anonymous = await site.api('/broadcast_messages', { as: null });
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers['x-total']).toBe('2');
    expect(anonymous.body.map((message: any) => message.id)).toEqual([future.body.id, id]);
    expect((await site.api(`/broadcast_messages/${id}`, { as: alice.token })).body.message).toBe('Maintenance tonight');

    const changed = await site.api(`/broadcast_messages/${id}`, { method: 'PUT', body: { message: 'Postponed', ends_at: '2000-01-02T00:00:00Z', starts_at: '2000-01-01T00:00:00Z' } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ message: 'Postponed', active: false, color: '#E75E40' });

    expect((await site.api(`/broadcast_messages/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await site.api(`/broadcast_messages/${id}`)).status).toBe(404);
  });

  it('answers 400, 401, 403, 404 and 412', async () => {
    expect((await site.api('/broadcast_messages', { method: 'POST', body: {} })).body).toEqual({ message: 'message is missing' });
    expect((await site.api('/broadcast_messages', { method: 'POST', body: { message: 'x', broadcast_type: 'popup' } })).status).toBe(400);
    expect((await site.api('/broadcast_messages', { method: 'POST', body: { message: 'x', target_access_levels: [15] } })).status).toBe(400);
    expect((await site.api('/broadcast_messages', { method: 'POST', body: { message: 'x', color: 'red' } })).body).toEqual({ message: { color: ['must be a valid color code'] } });
    expect((await site.api('/broadcast_messages', { method: 'POST', body: { message: 'x', starts_at: 'soon' } })).body).toEqual({ message: 'starts_at is invalid' });
    expect((await site.api('/broadcast_messages', { method: 'POST', body: { message: 'x' }, as: null })).status).toBe(401);
    expect((await site.api('/broadcast_messages', { method: 'POST', body: { message: 'x' }, as: alice.token })).status).toBe(403);
    expect((await site.api('/broadcast_messages/abc')).status).toBe(400);
    expect((await site.api('/broadcast_messages/999999')).body).toEqual({ message: '404 Broadcast message Not Found' });
    expect((await site.api('/broadcast_messages/999999', { method: 'PUT', body: { message: 'x' } })).status).toBe(404);
    const message = (await site.api('/broadcast_messages', { method: 'POST', body: { message: 'keep' } })).body;
    expect((await site.api(`/broadcast_messages/${message.id}`, { method: 'DELETE', as: alice.token })).status).toBe(403);
    const stale = await site.api(`/broadcast_messages/${message.id}`, { method: 'DELETE', headers: { 'if-unmodified-since': 'Thu, 01 Jan 2015 00:00:00 GMT' } });
    expect(stale.status).toBe(412);
    expect((await site.api(`/broadcast_messages/${message.id}`, { method: 'DELETE' })).status).toBe(204);
  });
});

describe('application settings', () => {
  it('reads the defaults, keeps unknown keys, and answers 400, 401 and 403', async () => {
    const read = await site.api('/application/settings');
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: 1,
      signup_enabled: true,
      default_project_visibility: 'private',
      default_group_visibility: 'private',
      default_projects_limit: 100000,
      gravatar_enabled: false,
      restricted_visibility_levels: [],
      allow_local_requests_from_web_hooks_and_services: true,
      allow_local_requests_from_system_hooks: true,
    });
    const put = await site.api('/application/settings', { method: 'PUT', body: { signup_enabled: false, some_future_setting: { deep: [1, 2] }, home_page_url: 'https://example.com' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ signup_enabled: false, some_future_setting: { deep: [1, 2] }, home_page_url: 'https://example.com' });
    expect((await site.api('/application/settings')).body).toMatchObject({ signup_enabled: false, home_page_url: 'https://example.com' });
    expect((await site.api('/application/settings', { method: 'PUT', body: { signup_enabled: true } })).body.signup_enabled).toBe(true);

    expect((await site.api('/application/settings', { method: 'PUT', body: { default_project_visibility: 'secret' } })).body).toEqual({ message: 'default_project_visibility does not have a valid value' });
    expect((await site.api('/application/settings', { method: 'PUT', body: { gravatar_enabled: 'maybe' } })).body).toEqual({ message: 'gravatar_enabled is invalid' });
    expect((await site.api('/application/settings', { method: 'PUT', body: { throttle_authenticated_api_period_in_seconds: 0 } })).status).toBe(400);
    expect((await site.api('/application/settings', { method: 'PUT', body: { 'Bad Key': 1 } })).status).toBe(400);
    expect((await site.api('/application/settings', { as: null })).status).toBe(401);
    expect((await site.api('/application/settings', { as: alice.token })).status).toBe(403);
    expect((await site.api('/application/settings', { method: 'PUT', body: { signup_enabled: false }, as: alice.token })).status).toBe(403);
    expect((await site.api('/application/settings')).body.signup_enabled).toBe(true);
  });

  it('default visibilities and restricted levels govern project and group creation and updates', async () => {
    await site.api('/application/settings', { method: 'PUT', body: { default_project_visibility: 'internal', default_group_visibility: 'public' } });
    expect((await createProject(site, {}, alice.token)).visibility).toBe('internal');
    expect((await createGroup(site, {}, alice.token)).visibility).toBe('public');

    await site.api('/application/settings', { method: 'PUT', body: { default_project_visibility: 'private', default_group_visibility: 'private', restricted_visibility_levels: ['public'] } });
    const refused = await site.api('/projects', { method: 'POST', body: { name: 'open-one', visibility: 'public' }, as: alice.token });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: { visibility_level: ['public has been restricted by your GitLab administrator'] } });
    const group = await site.api('/groups', { method: 'POST', body: { name: 'open group', path: `open-group-${Date.now()}`, visibility: 'public' }, as: alice.token });
    expect(group.status).toBe(400);
    expect(group.body.message).toContain('public has been restricted by your GitLab administrator');
    const project = await createProject(site, { visibility: 'internal' }, alice.token);
    expect((await site.api(`/projects/${project.id}`, { method: 'PUT', body: { visibility: 'public' }, as: alice.token })).body).toEqual({
      message: { visibility_level: ['public has been restricted by your GitLab administrator'] },
    });
    const own = await createGroup(site, { visibility: 'internal' }, alice.token);
    expect((await site.api(`/groups/${own.id}`, { method: 'PUT', body: { visibility: 'public' }, as: alice.token })).status).toBe(400);
    // Admins are not restricted.
    expect((await site.api(`/projects/${project.id}`, { method: 'PUT', body: { visibility: 'public' } })).body.visibility).toBe('public');
    expect((await site.api('/application/settings', { method: 'PUT', body: { restricted_visibility_levels: [] } })).body.restricted_visibility_levels).toEqual([]);
    expect((await site.api('/projects', { method: 'POST', body: { name: 'open-two', visibility: 'public' }, as: alice.token })).status).toBe(201);
  });

  it('default_projects_limit is a new user’s project limit; gravatar_enabled shows Gravatar avatars', async () => {
    await site.api('/application/settings', { method: 'PUT', body: { default_projects_limit: 1 } });
    const limited = await createUser(site);
    expect((await site.api(`/users/${limited.id}`)).body.projects_limit).toBe(1);
    expect((await site.api('/projects', { method: 'POST', body: { name: 'first' }, as: limited.token })).status).toBe(201);
    expect((await site.api('/projects', { method: 'POST', body: { name: 'second' }, as: limited.token })).status).toBe(403);
    await site.api('/application/settings', { method: 'PUT', body: { default_projects_limit: 100000 } });

    expect((await site.api(`/users/${bob.id}`)).body.avatar_url).toBeNull();
    await site.api('/application/settings', { method: 'PUT', body: { gravatar_enabled: true } });
    expect((await site.api(`/users/${bob.id}`)).body.avatar_url).toMatch(/^https:\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{64}\?s=80&d=identicon$/);
    await site.api('/application/settings', { method: 'PUT', body: { gravatar_enabled: false } });
    expect((await site.api(`/users/${bob.id}`)).body.avatar_url).toBeNull();
  });
});

describe('application statistics and license', () => {
  it('counts as delimited strings, for admins', async () => {
    const stats = await site.api('/application/statistics');
    expect(stats.status).toBe(200);
    for (const key of ['forks', 'issues', 'merge_requests', 'notes', 'snippets', 'ssh_keys', 'milestones', 'users', 'groups', 'projects', 'active_users']) {
      expect(stats.body[key]).toMatch(/^\d{1,3}(,\d{3})*$/);
    }
    expect(Number(stats.body.users)).toBeGreaterThanOrEqual(3);
    expect((await site.api('/application/statistics', { as: alice.token })).status).toBe(403);
    expect((await site.api('/application/statistics', { as: null })).status).toBe(401);
  });

  it('shows the ee edition as a premium license, to admins', async () => {
    const license = await site.api('/license');
    expect(license.status).toBe(200);
    expect(license.body).toMatchObject({ plan: 'premium', expired: false, user_limit: 0, expires_at: null });
    expect((await site.api('/license', { as: alice.token })).status).toBe(403);
  });
});

describe('access requests', () => {
  it('a non-member asks, managers list and approve (developer by default), the requester withdraws, managers deny', async () => {
    const [owner, asker, other] = await Promise.all([createUser(site), createUser(site), createUser(site)]);
    const group = await createGroup(site, { visibility: 'public', request_access_enabled: true }, owner.token);
    const base = `/groups/${group.id}/access_requests`;
    const asked = await site.api(base, { method: 'POST', as: asker.token });
    expect(asked.status).toBe(201);
    expect(asked.body).toMatchObject({ id: asker.id, username: asker.username, state: 'active' });
    expect(asked.body.requested_at).toEqual(expect.any(String));
    expect((await site.api(base, { method: 'POST', as: asker.token })).status).toBe(403);
    expect((await site.api(base, { method: 'POST', as: owner.token })).status).toBe(403);
    expect((await site.api(base, { as: asker.token })).status).toBe(403);
    const list = await site.api(base, { as: owner.token });
    expect(list.body.map((row: any) => row.id)).toEqual([asker.id]);
    expect(list.headers['x-total']).toBe('1');

    expect((await site.api(`${base}/${asker.id}/approve`, { method: 'PUT', body: { access_level: 60 }, as: owner.token })).status).toBe(400);
    expect((await site.api(`${base}/${asker.id}/approve`, { method: 'PUT', as: asker.token })).status).toBe(403);
    const approved = await site.api(`${base}/${asker.id}/approve`, { method: 'PUT', as: owner.token });
    expect(approved.status).toBe(201);
    expect(approved.body).toMatchObject({ id: asker.id, access_level: 30 });
    expect((await site.api(`/groups/${group.id}/members/${asker.id}`)).body.access_level).toBe(30);
    expect((await site.api(`${base}/${asker.id}/approve`, { method: 'PUT', as: owner.token })).body).toEqual({ message: '404 Not found' });

    expect((await site.api(base, { method: 'POST', as: other.token })).status).toBe(201);
    expect((await site.api(`${base}/${other.id}`, { method: 'DELETE', as: asker.token })).status).toBe(403);
    expect((await site.api(`${base}/${other.id}`, { method: 'DELETE', as: other.token })).status).toBe(204);
    expect((await site.api(base, { method: 'POST', as: other.token })).status).toBe(201);
    expect((await site.api(`${base}/${other.id}`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect((await site.api(`${base}/${other.id}`, { method: 'DELETE', as: owner.token })).status).toBe(404);
  });

  it('projects: maintainers approve at a level; requests need request_access_enabled; a private project is 404 to outsiders', async () => {
    const [maintainer, asker] = await Promise.all([createUser(site), createUser(site)]);
    const open = await createProject(site, { visibility: 'public', request_access_enabled: true });
    await addMember(site, 'projects', open.id, maintainer, 40);
    const base = `/projects/${open.id}/access_requests`;
    expect((await site.api(base, { method: 'POST', as: asker.token })).status).toBe(201);
    const approved = await site.api(`${base}/${asker.id}/approve`, { method: 'PUT', body: { access_level: 20 }, as: maintainer.token });
    expect(approved.body).toMatchObject({ id: asker.id, access_level: 20 });
    expect((await site.api(`${base}/${asker.id}/approve`, { method: 'PUT', body: { access_level: 50 }, as: maintainer.token })).status).toBe(400);

    const closed = await createProject(site, { visibility: 'public', request_access_enabled: false });
    expect((await site.api(`/projects/${closed.id}/access_requests`, { method: 'POST', as: asker.token })).status).toBe(403);
    const hidden = await createProject(site, { visibility: 'private', request_access_enabled: true });
    expect((await site.api(`/projects/${hidden.id}/access_requests`, { method: 'POST', as: asker.token })).status).toBe(404);
    expect((await site.api(base, { as: null })).status).toBe(401);
    expect((await site.api(`${base}/abc/approve`, { method: 'PUT', as: maintainer.token })).status).toBe(400);
  });

  it('adding a requester as a member answers their request', async () => {
    const asker = await createUser(site);
    const project = await createProject(site, { visibility: 'public', request_access_enabled: true });
    await site.api(`/projects/${project.id}/access_requests`, { method: 'POST', as: asker.token });
    await addMember(site, 'projects', project.id, asker, 30);
    expect((await site.api(`/projects/${project.id}/access_requests`)).body).toEqual([]);
  });
});

describe('templates', () => {
  it('lists SPDX licenses, popular ones, and fills GitLab’s placeholders', async () => {
    const all = await site.api('/templates/licenses?per_page=5', { as: null });
    expect(all.status).toBe(200);
    expect(all.body).toHaveLength(5);
    expect(Number(all.headers['x-total'])).toBeGreaterThan(100);
    const popular = await site.api('/templates/licenses?popular=true', { as: null });
    expect(popular.body.map((license: any) => license.key).sort()).toEqual(['apache-2.0', 'gpl-3.0-only', 'mit']);
    expect(popular.body[0]).toEqual({
      key: expect.any(String),
      name: expect.any(String),
      nickname: null,
      popular: true,
      html_url: expect.stringMatching(/^https:\/\/spdx\.org\/licenses\//),
      source_url: expect.any(String),
      description: null,
      conditions: [],
      permissions: [],
      limitations: [],
      content: expect.any(String),
    });
    const mit = await site.api('/templates/licenses/MIT?project=widget&fullname=Jane%20Doe', { as: null });
    expect(mit.body.key).toBe('mit');
    expect(mit.body.content).toContain(`Copyright (c) ${new Date().getUTCFullYear()} Jane Doe`);
    const apache = await site.api('/templates/licenses/apache-2.0', { as: alice.token });
    expect(apache.body.content).not.toContain('[yyyy]');
    expect((await site.api('/templates/licenses/no-such-license')).body).toEqual({ message: '404 License Not Found' });
    expect((await site.api('/templates/licenses?popular=maybe')).status).toBe(400);
  });

  it('gitignores, dockerfiles and gitlab_ci_ymls are empty (no package ships them); project templates', async () => {
    for (const type of ['gitignores', 'dockerfiles', 'gitlab_ci_ymls']) {
      const list = await site.api(`/templates/${type}`, { as: null });
      expect(list.status).toBe(200);
      expect(list.body).toEqual([]);
      expect((await site.api(`/templates/${type}/Node`)).status).toBe(404);
    }
    const project = await createProject(site, { name: 'gadget', visibility: 'private' }, alice.token);
    const list = await site.api(`/projects/${project.id}/templates/licenses?per_page=2`, { as: alice.token });
    expect(list.body).toEqual([expect.objectContaining({ key: expect.any(String), name: expect.any(String) }), expect.anything()]);
    const gpl = await site.api(`/projects/${project.id}/templates/licenses/gpl-3.0-only`, { as: alice.token });
    expect(gpl.body.content).toContain('gadget');
    expect((await site.api(`/projects/${project.id}/templates/gitignores`, { as: alice.token })).body).toEqual([]);
    expect((await site.api(`/projects/${project.id}/templates/nonsense`, { as: alice.token })).status).toBe(400);
    expect((await site.api(`/projects/${project.id}/templates/licenses`, { as: bob.token })).status).toBe(404);
  });
});

describe('markdown', () => {
  it('renders GFM with references to existing issues and merge requests, mentions, and sanitised HTML', async () => {
    const project = await createProject(site, { visibility: 'private', initialize_with_readme: true }, alice.token);
    const issue = (await site.api(`/projects/${project.id}/issues`, { method: 'POST', body: { title: 'Broken <b>thing</b>' }, as: alice.token })).body;
    await site.api(`/projects/${project.id}/repository/branches`, { method: 'POST', body: { branch: 'topic', ref: 'master' }, as: alice.token });
    const mr = (await site.api(`/projects/${project.id}/merge_requests`, { method: 'POST', body: { title: 'Fix', source_branch: 'topic', target_branch: 'master' }, as: alice.token })).body;
    const text = `See #${issue.iid} and !${mr.iid}, not #999 nor \`#${issue.iid}\`; ask @${bob.username} or @nobody-here.\n\n<script>alert(1)</script>[x](javascript:alert(1)) <a href="javascript:alert(2)" onclick="x()">y</a>\n\n| a |\n|---|\n| b |`;
    const rendered = await site.api('/markdown', { method: 'POST', body: { text, gfm: true, project: project.path_with_namespace }, as: alice.token });
    expect(rendered.status).toBe(201);
    const html: string = rendered.body.html;
    expect(html).toContain(`href="${site.url}/${project.path_with_namespace}/-/issues/${issue.iid}"`);
    expect(html).toContain('class="gfm gfm-issue"');
    expect(html).toContain(`href="${site.url}/${project.path_with_namespace}/-/merge_requests/${mr.iid}"`);
    expect(html).toContain(`href="${site.url}/${bob.username}"`);
    expect(html).toContain('#999');
    expect(html).not.toContain('-/issues/999');
    expect(html).toContain(`<code>#${issue.iid}</code>`);
    expect(html).not.toMatch(/nobody-here"/);
    expect(html).not.toContain('<script');
    expect(html).not.toMatch(/href="javascript:/i);
    expect(html).not.toContain('onclick');
    expect(html).toContain('<table>');

    const plain = await site.api('/markdown', { method: 'POST', body: { text: `#${issue.iid} **bold**` }, as: alice.token });
    expect(plain.body.html).toBe(`<p>#${issue.iid} <strong>bold</strong></p>\n`);
    // Without the project as context, or for a caller who cannot see it, no issue links.
    expect((await site.api('/markdown', { method: 'POST', body: { text: `#${issue.iid}`, gfm: true }, as: alice.token })).body.html).not.toContain('gfm-issue');
    expect((await site.api('/markdown', { method: 'POST', body: { text: 'x', gfm: true, project: project.path_with_namespace }, as: bob.token })).body).toEqual({ message: '404 Project Not Found' });
    expect((await site.api('/markdown', { method: 'POST', body: {}, as: alice.token })).body).toEqual({ message: 'text is missing' });
    expect((await site.api('/markdown', { method: 'POST', body: { text: 'x' }, as: null })).status).toBe(401);
  });
});
