import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import { createdBy, createGroup, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { gitClient, remoteUrl, startHookReceiver, type HookReceiver } from '../helpers/git.js';
import { sshPublicKey } from '../helpers/keys.js';
import { waitFor } from '../helpers/multisite.js';
import { startSite, type TestSite } from '../helpers/site.js';

/** System hooks (GitLab's system_hooks.rb): admin CRUD, the test event, and real deliveries of the system events. */
describe('system hooks API', () => {
  let site: TestSite;
  let user: TestUser;

  beforeAll(async () => {
    site = await startSite();
    user = await createUser(site);
  });
  afterAll(() => site?.stop());

  it('creates with GitLab 17 defaults, lists, shows, edits and deletes; the token is never shown', async () => {
    const created = await site.api('/hooks', { method: 'POST', body: { url: 'https://example.com/system', token: 's3cret', name: 'Audit' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      url: 'https://example.com/system',
      name: 'Audit',
      description: null,
      created_at: expect.stringMatching(/Z$/),
      push_events: false,
      tag_push_events: false,
      merge_requests_events: false,
      repository_update_events: true,
      enable_ssl_verification: true,
      alert_status: 'executable',
      disabled_until: null,
      url_variables: [],
      push_events_branch_filter: null,
      branch_filter_strategy: 'wildcard',
      custom_headers: [],
    });
    expect(created.text).not.toContain('s3cret');
    const id = created.body.id;
    const list = await site.api('/hooks');
    expect(list.status).toBe(200);
    expect(list.headers['x-total']).toBe('1');
    expect(list.body.map((hook: any) => hook.id)).toEqual([id]);
    expect((await site.api(`/hooks/${id}`)).body.name).toBe('Audit');
    const edited = await site.api(`/hooks/${id}`, { method: 'PUT', body: { push_events: true, repository_update_events: 'false', description: 'all pushes' } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ url: 'https://example.com/system', push_events: true, repository_update_events: false, description: 'all pushes' });
    const tested = await site.api(`/hooks/${id}`, { method: 'POST' });
    expect(tested.status).toBe(201);
    expect(tested.body).toEqual({ event_name: 'project_create', name: 'Ruby', path: 'ruby', project_id: 1, owner_name: 'Someone', owner_email: 'example@gitlabhq.com' });
    expect((await site.api(`/hooks/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await site.api(`/hooks/${id}`)).status).toBe(404);
  });

  it('answers the error rows: 401, 403, 404 and 400', async () => {
    const hook = await createdBy(site, '/hooks', { url: 'https://example.com/x' });
    for (const [method, url] of [
      ['GET', '/hooks'],
      ['POST', '/hooks'],
      ['GET', `/hooks/${hook.id}`],
      ['PUT', `/hooks/${hook.id}`],
      ['POST', `/hooks/${hook.id}`],
      ['DELETE', `/hooks/${hook.id}`],
    ] as const) {
      expect((await site.api(url, { method, as: null, body: { url: 'https://example.com/y' } })).status, `${method} ${url}`).toBe(401);
      expect((await site.api(url, { method, as: user.token, body: { url: 'https://example.com/y' } })).status, `${method} ${url}`).toBe(403);
    }
    for (const method of ['GET', 'PUT', 'POST', 'DELETE'] as const) {
      expect((await site.api('/hooks/999999', { method, body: {} })).status, method).toBe(404);
      expect((await site.api('/hooks/abc', { method, body: {} })).status, method).toBe(400);
    }
    expect((await site.api('/hooks', { method: 'POST', body: {} })).status).toBe(400);
    expect((await site.api('/hooks', { method: 'POST', body: { url: 'ftp://example.com' } })).status).toBe(400);
    expect((await site.api('/hooks', { method: 'POST', body: { url: 'not a url' } })).status).toBe(400);
    expect((await site.api('/hooks', { method: 'POST', body: { url: 'https://example.com', push_events: 'maybe' } })).status).toBe(400);
    expect((await site.api(`/hooks/${hook.id}`, { method: 'PUT', body: { url: 'gopher://x' } })).status).toBe(400);
    expect((await site.api(`/hooks/${hook.id}`, { method: 'DELETE', headers: { 'if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' } })).status).toBe(412);
  });
});

describe('system hook deliveries', () => {
  let site: TestSite;
  let receiver: HookReceiver;
  let home: string;

  beforeAll(async () => {
    site = await startSite();
    receiver = await startHookReceiver();
    home = await mkdtemp(path.join(tmpdir(), 'geoforge-system-hooks-'));
    await createdBy(site, '/hooks', { url: `${receiver.origin}/all`, push_events: true, tag_push_events: true, merge_requests_events: true });
    await createdBy(site, '/hooks', { url: `${receiver.origin}/quiet` });
  });
  afterAll(async () => {
    await receiver?.stop();
    await site?.stop();
    await rm(home, { recursive: true, force: true });
  });

  const eventsTo = (where: string) => receiver.deliveriesTo(where).map((delivery) => delivery.body.event_name ?? delivery.body.object_kind);
  const find = (where: string, event: string, match: (body: any) => boolean = () => true) =>
    waitFor(() => receiver.deliveriesTo(where).find((delivery) => (delivery.body.event_name ?? delivery.body.object_kind) === event && match(delivery.body)), {
      timeoutMs: 15_000,
      message: `${event} to ${where}; got ${eventsTo(where).join(', ')}`,
    });

  it('delivers user, group, project, member, key, push, merge request and repository events with GitLab payloads', async () => {
    const alice = await createUser(site, { username: 'alice-sys' });
    const created = await find('/all', 'user_create', (body) => body.user_id === alice.id);
    expect(created.event).toBe('System Hook');
    expect(created.body).toMatchObject({ event_name: 'user_create', username: 'alice-sys', email: alice.email, name: expect.any(String), created_at: expect.any(String) });

    const group = await createGroup(site, { path: 'sysgroup', name: 'Sys Group' });
    expect((await find('/all', 'group_create', (body) => body.group_id === group.id)).body).toMatchObject({ name: 'Sys Group', path: 'sysgroup', full_path: 'sysgroup', owner_name: null });

    const project = await createProject(site, { path: 'sysproj', namespace_id: group.id });
    expect((await find('/all', 'project_create', (body) => body.project_id === project.id)).body).toMatchObject({
      name: project.name,
      path: 'sysproj',
      path_with_namespace: 'sysgroup/sysproj',
      owner_name: 'Sys Group',
      project_visibility: 'private',
      owners: expect.any(Array),
    });

    await createdBy(site, `/projects/${project.id}/members`, { user_id: alice.id, access_level: 40 });
    expect((await find('/all', 'user_add_to_team', (body) => body.user_id === alice.id)).body).toMatchObject({
      access_level: 'Maintainer',
      project_id: project.id,
      project_path_with_namespace: 'sysgroup/sysproj',
      user_username: 'alice-sys',
      project_visibility: 'private',
    });
    await createdBy(site, `/groups/${group.id}/members`, { user_id: alice.id, access_level: 30 });
    expect((await find('/all', 'user_add_to_group', (body) => body.user_id === alice.id)).body).toMatchObject({ group_access: 'Developer', group_id: group.id, group_path: 'sysgroup' });
    expect((await site.api(`/groups/${group.id}/members/${alice.id}`, { method: 'DELETE' })).status).toBe(204);
    await find('/all', 'user_remove_from_group', (body) => body.user_id === alice.id);

    const key = await createdBy(site, `/users/${alice.id}/keys`, { title: 'k', key: sshPublicKey() });
    expect((await find('/all', 'key_create', (body) => body.id === key.id)).body).toMatchObject({ username: 'alice-sys', key: key.key });
    expect((await site.api(`/users/${alice.id}/keys/${key.id}`, { method: 'DELETE' })).status).toBe(204);
    await find('/all', 'key_destroy', (body) => body.id === key.id);

    // A real push: push and repository_update to the hook with push_events, only repository_update to the other.
    const git = gitClient(home);
    const work = path.join(home, 'work');
    await git(['init', '-q', '-b', 'master', work]);
    await writeFile(path.join(work, 'README.md'), 'hello\n');
    await git(['add', '.'], work);
    await git(['commit', '-q', '-m', 'first'], work);
    const pushed = await git(['push', remoteUrl(site.url, project, { username: 'root', token: 'glpat-root-token-for-tests-0001' }), 'master', '--quiet'], work);
    expect(pushed.exitCode, pushed.stderr).toBe(0);
    const push = await find('/all', 'push', (body) => body.project_id === project.id);
    expect(push.body).toMatchObject({ object_kind: 'push', ref: 'refs/heads/master', total_commits_count: 1 });
    const update = await find('/quiet', 'repository_update', (body) => body.project_id === project.id);
    expect(update.body).toMatchObject({ changes: [{ ref: 'refs/heads/master', after: push.body.after }], refs: ['refs/heads/master'], project: { path_with_namespace: 'sysgroup/sysproj' } });
    await find('/all', 'repository_update', (body) => body.project_id === project.id);

    await createdBy(site, `/projects/${project.id}/repository/tags`, { tag_name: 'v1', ref: 'master' });
    await find('/all', 'tag_push', (body) => body.ref === 'refs/tags/v1');
    await createdBy(site, `/projects/${project.id}/repository/branches`, { branch: 'topic', ref: 'master' });
    await createdBy(site, `/projects/${project.id}/merge_requests`, { source_branch: 'topic', target_branch: 'master', title: 'Sys MR' });
    expect((await find('/all', 'merge_request')).body).toMatchObject({ object_kind: 'merge_request', object_attributes: { title: 'Sys MR' } });

    expect((await site.api(`/projects/${project.id}`, { method: 'PUT', body: { path: 'renamed' } })).status).toBe(200);
    expect((await find('/all', 'project_rename')).body).toMatchObject({ path_with_namespace: 'sysgroup/renamed', old_path_with_namespace: 'sysgroup/sysproj' });
    const other = await createGroup(site, { path: 'othergroup' });
    expect((await site.api(`/projects/${project.id}/transfer`, { method: 'PUT', body: { namespace: other.id } })).status).toBe(200);
    expect((await find('/all', 'project_transfer')).body).toMatchObject({ path_with_namespace: 'othergroup/renamed', old_path_with_namespace: 'sysgroup/renamed' });

    expect((await site.api(`/projects/${project.id}`, { method: 'DELETE' })).status).toBe(202);
    await find('/all', 'project_destroy', (body) => body.project_id === project.id);
    expect((await site.api(`/users/${alice.id}`, { method: 'DELETE' })).status).toBe(204);
    await find('/all', 'user_destroy', (body) => body.user_id === alice.id);

    // The events without a flag reach every hook; push, tag push and merge request only those switched on.
    expect(eventsTo('/quiet')).toContain('user_create');
    expect(eventsTo('/quiet')).not.toContain('push');
    expect(eventsTo('/quiet')).not.toContain('merge_request');
    const logged = site.site.db.prepare('SELECT count(*) FROM web_hook_logs WHERE system_hook_id IS NOT NULL AND response_status = 200').pluck().get() as number;
    expect(logged).toBeGreaterThan(10);
  }, 120_000);
});

describe("the local-network rule of system hooks (GitLab's allow_local_requests_from_system_hooks)", () => {
  let receiver: HookReceiver;
  beforeAll(async () => {
    receiver = await startHookReceiver();
  });
  afterAll(() => receiver?.stop());

  it('lets system hooks call loopback by default while project hooks may not', async () => {
    const site = await startSite({ allowLocalRequests: false });
    try {
      const system = await createdBy(site, '/hooks', { url: `${receiver.origin}/default-system` });
      await createdBy(site, `/hooks/${system.id}`, {});
      await waitFor(() => receiver.deliveriesTo('/default-system').length === 1, { timeoutMs: 10_000 });
      const project = await createProject(site);
      const hook = await createdBy(site, `/projects/${project.id}/hooks`, { url: `${receiver.origin}/default-project`, issues_events: true });
      await createdBy(site, `/projects/${project.id}/issues`, { title: 'x' });
      const refused = await waitFor(
        () => site.site.db.prepare('SELECT error FROM web_hook_logs WHERE hook_id = ?').pluck().get(hook.id) as string | undefined,
        { timeoutMs: 10_000 },
      );
      expect(refused).toMatch(/local network/);
    } finally {
      await site.stop();
    }
  });

  it('refuses loopback to system hooks when the setting is off', async () => {
    const site = await startSite({ allowLocalRequests: false, allowLocalRequestsFromSystemHooks: false });
    try {
      const system = await createdBy(site, '/hooks', { url: `${receiver.origin}/off-system` });
      await createdBy(site, `/hooks/${system.id}`, {});
      const refused = await waitFor(
        () => site.site.db.prepare('SELECT error FROM web_hook_logs WHERE system_hook_id = ?').pluck().get(system.id) as string | undefined,
        { timeoutMs: 10_000 },
      );
      expect(refused).toMatch(/local network/);
      expect(receiver.deliveriesTo('/off-system')).toEqual([]);
    } finally {
      await site.stop();
    }
  });
});

describe('migration 24 (releases, system hooks)', () => {
  it('keeps releases, queued deliveries and the log, giving old releases their tag as name and creation as release time', () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = OFF');
    db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    for (const migration of migrations.filter((m) => m.version < 24)) {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(migration.version, migration.name, '');
    }
    db.exec(`INSERT INTO releases (id, project_id, tag, description, author_id, created_at, updated_at) VALUES (3, 1, 'v1', 'notes', NULL, '2020-01-01T00:00:00.000Z', '2020-01-02T00:00:00.000Z');
      INSERT INTO group_hooks (id, group_id, url, created_at, updated_at) VALUES (5, 1, 'https://e.com', '', '');
      INSERT INTO web_hook_queue (id, group_hook_id, event, body, attempts, next_attempt_at, created_at) VALUES (41, 5, 'push', '{"a":1}', 2, 123, 'then');
      INSERT INTO web_hook_logs (id, group_hook_id, event, url, attempt, request_headers, request_body, response_status, duration_ms, created_at) VALUES (9, 5, 'push', 'https://e.com', 1, '{}', '{}', 500, 3, 'then');`);
    expect(migrate(db)).toEqual(migrations.filter((m) => m.version >= 24).map((m) => m.version));
    expect(db.prepare('SELECT tag, name, released_at, sha FROM releases').all()).toEqual([{ tag: 'v1', name: 'v1', released_at: '2020-01-01T00:00:00.000Z', sha: null }]);
    expect(db.prepare('SELECT id, hook_id, group_hook_id, system_hook_id, attempts FROM web_hook_queue').all()).toEqual([{ id: 41, hook_id: null, group_hook_id: 5, system_hook_id: null, attempts: 2 }]);
    expect(db.prepare('SELECT id, group_hook_id, system_hook_id, response_status FROM web_hook_logs').all()).toEqual([{ id: 9, group_hook_id: 5, system_hook_id: null, response_status: 500 }]);
    expect(() => db.prepare("INSERT INTO web_hook_queue (event, body, next_attempt_at, created_at) VALUES ('push', '{}', 0, '')").run()).toThrow(/CHECK/);
    expect(() => db.prepare("INSERT INTO web_hook_queue (hook_id, group_hook_id, event, body, next_attempt_at, created_at) VALUES (1, 5, 'push', '{}', 0, '')").run()).toThrow(/CHECK/);
    db.exec("INSERT INTO system_hooks (id, url, created_at, updated_at) VALUES (2, 'https://s.example', '', '')");
    expect(db.prepare('SELECT push_events, repository_update_events FROM system_hooks').get()).toEqual({ push_events: 0, repository_update_events: 1 });
    expect(db.prepare("INSERT INTO web_hook_queue (system_hook_id, event, body, next_attempt_at, created_at) VALUES (2, 'user_create', '{}', 0, '')").run().lastInsertRowid).toBe(42);
    db.close();
  });
});
