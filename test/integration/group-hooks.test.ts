import Database from 'better-sqlite3';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations/index.js';
import { addMember, createGroup, createProject, createUser, type TestGroup, type TestUser } from '../helpers/factories.js';
import { gitClient, remoteUrl, startHookReceiver, type HookReceiver } from '../helpers/git.js';
import { waitFor } from '../helpers/multisite.js';
import { ROOT_TOKEN, startSite, type TestSite } from '../helpers/site.js';

/** Group webhooks (ee; issue 17, item 6): the routes and their error rows, and the group's projects' events delivered to them. */
describe('group hooks', () => {
  let site: TestSite;
  let owner: TestUser;
  let maintainer: TestUser;
  let outsider: TestUser;
  let group: TestGroup;
  const hooks = (id: number | string) => `/groups/${id}/hooks`;

  beforeAll(async () => {
    site = await startSite();
    [owner, maintainer, outsider] = await Promise.all([createUser(site), createUser(site), createUser(site)]);
    group = await createGroup(site, { visibility: 'private' });
    await addMember(site, 'groups', group.id, owner, 50);
    await addMember(site, 'groups', group.id, maintainer, 40);
  });
  afterAll(() => site.stop());

  it('creates, lists, shows, edits and deletes a group’s hooks (owners), the token never shown', async () => {
    const created = await site.api(hooks(group.id), { method: 'POST', as: owner.token, body: { url: 'https://hooks.example.com/in', token: 'secret', issues_events: true } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      url: 'https://hooks.example.com/in',
      group_id: group.id,
      push_events: true,
      issues_events: true,
      confidential_issues_events: false,
      merge_requests_events: false,
      tag_push_events: false,
      note_events: false,
      job_events: false,
      pipeline_events: false,
      wiki_page_events: false,
      releases_events: false,
      enable_ssl_verification: true,
      created_at: expect.any(String),
    });
    const list = await site.api(hooks(encodeURIComponent(group.full_path)), { as: owner.token });
    expect(list.status).toBe(200);
    expect(list.headers['x-total']).toBe('1');
    expect(list.body).toEqual([created.body]);
    expect((await site.api(`${hooks(group.id)}/${created.body.id}`, { as: owner.token })).body).toEqual(created.body);
    const edited = await site.api(`${hooks(group.id)}/${created.body.id}`, { method: 'PUT', as: owner.token, body: { url: 'https://hooks.example.com/v2', push_events: false, wiki_events: true } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ url: 'https://hooks.example.com/v2', push_events: false, issues_events: true, wiki_page_events: true });
    expect((await site.api(`${hooks(group.id)}/${created.body.id}`, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect(await site.api(`${hooks(group.id)}/${created.body.id}`, { as: owner.token })).toMatchObject({ status: 404, body: { message: '404 Group Hook Not Found' } });
  });

  it('answers the error rows: 401 anonymous, 403 below owner, 404 invisible groups and other groups’ hooks, 400 bad urls and ids', async () => {
    const other = await createGroup(site);
    const foreign = await site.api(hooks(other.id), { method: 'POST', body: { url: 'http://127.0.0.1:9/x' } });
    expect(foreign.status).toBe(201);
    expect((await site.api(hooks(group.id), { as: null })).status).toBe(401);
    expect((await site.api(hooks(group.id), { method: 'POST', as: null, body: { url: 'https://e.com' } })).status).toBe(401);
    expect(await site.api(hooks(group.id), { as: maintainer.token })).toMatchObject({ status: 403, body: { message: '403 Forbidden' } });
    expect((await site.api(hooks(group.id), { method: 'POST', as: maintainer.token, body: { url: 'https://e.com' } })).status).toBe(403);
    expect(await site.api(hooks(group.id), { as: outsider.token })).toMatchObject({ status: 404, body: { message: '404 Group Not Found' } });
    expect(await site.api(`${hooks(group.id)}/${foreign.body.id}`, { as: owner.token })).toMatchObject({ status: 404, body: { message: '404 Group Hook Not Found' } });
    expect((await site.api(`${hooks(group.id)}/${foreign.body.id}`, { method: 'DELETE', as: owner.token })).status).toBe(404);
    expect(await site.api(hooks(group.id), { method: 'POST', as: owner.token, body: {} })).toMatchObject({ status: 400, body: { message: 'url is missing' } });
    expect(await site.api(hooks(group.id), { method: 'POST', as: owner.token, body: { url: 'ftp://e.com' } })).toMatchObject({ status: 400, body: { message: { url: expect.any(Array) } } });
    expect(await site.api(`${hooks(group.id)}/abc`, { as: owner.token })).toMatchObject({ status: 400, body: { message: 'hook_id is invalid' } });
    expect((await site.api(`${hooks(group.id)}/999999`, { method: 'PUT', as: owner.token, body: { url: 'https://e.com' } })).status).toBe(404);
  });

  it('calls the hooks of the project’s group and of the groups above it with the project’s push, tag push, wiki page, issue and note events', async () => {
    const receiver: HookReceiver = await startHookReceiver();
    const scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-group-hooks-'));
    try {
      const top = await createGroup(site);
      const sub = await createGroup(site, { parent_id: top.id });
      const project = await createProject(site, { namespace_id: sub.id });
      const elsewhere = await createProject(site);
      const topHook = await site.api(hooks(top.id), {
        method: 'POST',
        body: { url: `${receiver.url}?top`, token: 'top-secret', tag_push_events: true, issues_events: true, note_events: true, wiki_page_events: true },
      });
      const subHook = await site.api(hooks(sub.id), { method: 'POST', body: { url: `${receiver.url}?sub`, push_events: false, issues_events: true } });
      expect([topHook.status, subHook.status]).toEqual([201, 201]);

      const git = gitClient(scratch);
      const work = path.join(scratch, 'work');
      await git(['init', '--quiet', '-b', 'master', work]);
      await writeFile(path.join(work, 'README.md'), 'hello\n');
      await git(['add', '.'], work);
      await git(['commit', '--quiet', '-m', 'first'], work);
      await git(['tag', 'v1'], work);
      const root = { username: 'root', token: ROOT_TOKEN };
      await git(['push', '--quiet', remoteUrl(site.url, project, root), 'HEAD:refs/heads/master', 'v1'], work);
      await git(['push', '--quiet', remoteUrl(site.url, elsewhere, root), 'HEAD:refs/heads/master'], work);
      const wiki = path.join(scratch, 'wiki');
      await git(['init', '--quiet', '-b', 'master', wiki]);
      await writeFile(path.join(wiki, 'home.md'), '# Home\n');
      await git(['add', '.'], wiki);
      await git(['commit', '--quiet', '-m', 'wiki home'], wiki);
      await git(['push', '--quiet', remoteUrl(site.url, project, root, '.wiki.git'), 'HEAD:refs/heads/master'], wiki);

      const issue = await site.api(`/projects/${project.id}/issues`, { method: 'POST', body: { title: 'Hooked' } });
      expect(issue.status).toBe(201);
      expect((await site.api(`/projects/${project.id}/issues/${issue.body.iid}/notes`, { method: 'POST', body: { body: 'a comment' } })).status).toBe(201);

      await waitFor(() => receiver.received.length >= 6, { message: 'group hook deliveries' });
      const byTarget = (target: string) =>
        receiver.received
          .filter((r) => r.headers['x-gitlab-token'] === (target === 'top' ? 'top-secret' : undefined))
          .map((r) => r.headers['x-gitlab-event'])
          .sort();
      expect(byTarget('top')).toEqual(['Issue Hook', 'Note Hook', 'Push Hook', 'Tag Push Hook', 'Wiki Page Hook']);
      expect(byTarget('sub')).toEqual(['Issue Hook']);
      const push = receiver.received.find((r) => r.headers['x-gitlab-event'] === 'Push Hook')!;
      expect(push.body).toMatchObject({ object_kind: 'push', project_id: project.id, ref: 'refs/heads/master' });
      // The other project's push reached no group hook; every attempt is logged against its group hook.
      expect(receiver.received.filter((r) => r.body.project_id === elsewhere.id)).toEqual([]);
      const logged = await waitFor(() => {
        const rows = site.site.db.prepare('SELECT group_hook_id, event, response_status FROM web_hook_logs WHERE group_hook_id IN (?, ?) ORDER BY id').all(topHook.body.id, subHook.body.id);
        return rows.length === 6 ? rows : null;
      });
      expect(logged.every((row: any) => row.response_status === 200)).toBe(true);
      await waitFor(() => site.site.db.prepare('SELECT count(*) FROM web_hook_queue').pluck().get() === 0, { message: 'queue drained' });

      // Deleting the hook deletes its log.
      expect((await site.api(`${hooks(top.id)}/${topHook.body.id}`, { method: 'DELETE' })).status).toBe(204);
      expect(site.site.db.prepare('SELECT count(*) FROM web_hook_logs WHERE group_hook_id = ?').pluck().get(topHook.body.id)).toBe(0);
    } finally {
      receiver.close();
      await rm(scratch, { recursive: true, force: true });
    }
  });
});

describe('group hooks in the ce edition', () => {
  let ce: TestSite;
  beforeAll(async () => {
    ce = await startSite({ edition: 'ce' });
  });
  afterAll(() => ce.stop());

  it('answers every group hook route as an unknown route', async () => {
    const group = await createGroup(ce);
    for (const [method, suffix] of [['GET', ''], ['POST', ''], ['GET', '/1'], ['PUT', '/1'], ['DELETE', '/1']]) {
      expect(await ce.api(`/groups/${group.id}/hooks${suffix}`, { method, body: { url: 'https://e.com' } })).toMatchObject({ status: 404, body: { error: '404 Not Found' } });
    }
  });
});

describe('migration 0016 (settings)', () => {
  it('keeps the pending deliveries and the delivery log of project hooks when it rebuilds the queue and the log', () => {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = OFF');
    db.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
    for (const migration of migrations.filter((m) => m.version < 16)) {
      db.exec(migration.sql);
      db.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(migration.version, migration.name, '');
    }
    db.exec(`INSERT INTO project_hooks (id, project_id, url, created_at, updated_at) VALUES (7, 1, 'https://e.com', '', '');
      INSERT INTO web_hook_queue (id, hook_id, event, body, attempts, next_attempt_at, created_at) VALUES (41, 7, 'push', '{"a":1}', 2, 123, 'then');
      INSERT INTO web_hook_queue (id, hook_id, event, body, next_attempt_at, created_at) VALUES (50, 7, 'push', '{}', 0, 'gone');
      DELETE FROM web_hook_queue WHERE id = 50;
      INSERT INTO web_hook_logs (id, hook_id, event, url, attempt, request_headers, request_body, response_status, duration_ms, created_at) VALUES (9, 7, 'push', 'https://e.com', 1, '{}', '{}', 500, 3, 'then');`);
    expect(migrate(db)).toEqual(migrations.filter((m) => m.version >= 16).map((m) => m.version));
    expect(db.prepare('SELECT id, hook_id, group_hook_id, event, body, attempts, next_attempt_at FROM web_hook_queue').all()).toEqual([
      { id: 41, hook_id: 7, group_hook_id: null, event: 'push', body: '{"a":1}', attempts: 2, next_attempt_at: 123 },
    ]);
    expect(db.prepare('SELECT id, hook_id, group_hook_id, response_status FROM web_hook_logs').all()).toEqual([{ id: 9, hook_id: 7, group_hook_id: null, response_status: 500 }]);
    expect(() => db.prepare("INSERT INTO web_hook_queue (event, body, next_attempt_at, created_at) VALUES ('push', '{}', 0, '')").run()).toThrow(/CHECK/);
    // The sequences carry over: a deleted delivery's id is never handed out again.
    expect(db.prepare("INSERT INTO web_hook_queue (hook_id, event, body, next_attempt_at, created_at) VALUES (7, 'push', '{}', 0, '')").run().lastInsertRowid).toBe(51);
    expect(db.prepare("SELECT name, seq FROM sqlite_sequence WHERE name LIKE 'web_hook%' ORDER BY name").all()).toEqual([
      { name: 'web_hook_logs', seq: 9 },
      { name: 'web_hook_queue', seq: 51 },
    ]);
    db.close();
  });
});
