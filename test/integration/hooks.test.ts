import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/db/connection.js';
import { migrate } from '../../src/db/migrate.js';
import { createHook, type HookInput } from '../../src/services/hooks/hooks.js';
import { createUser as createUserRow } from '../../src/services/users/users.js';
import { fireProjectHooks } from '../../src/services/hooks/fire.js';
import { BLANK_SHA } from '../../src/git/object-names.js';
import { pushPayload, tagPushPayload, type PushInput } from '../../src/services/hooks/payloads.js';
import { HookQueue } from '../../src/services/hooks/queue.js';
import { createProject, createUser, type TestUser } from '../helpers/factories.js';
import { freePort, waitFor } from '../helpers/multisite.js';
import { startSite, type TestSite } from '../helpers/site.js';

const FLAGS = [
  'push_events',
  'issues_events',
  'confidential_issues_events',
  'merge_requests_events',
  'tag_push_events',
  'note_events',
  'job_events',
  'pipeline_events',
  'wiki_page_events',
] as const;

let seq = 0;

/** A project row seeded straight into a bare database (the engine tests run without a site), `ownerId` its maintainer. */
function seedProject(db: Db, ownerId: number, visibility = 0): { id: number; fullPath: string } {
  const ns = db.prepare("SELECT id, full_path FROM namespaces WHERE kind = 'user' AND owner_id = ?").get(ownerId) as { id: number; full_path: string };
  const now = new Date().toISOString();
  const projectPath = `hooked-${++seq}-${randomUUID().slice(0, 6)}`;
  const id = Number(
    db
      .prepare(
        'INSERT INTO projects (namespace_id, name, path, visibility_level, creator_id, runners_token, last_activity_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(ns.id, projectPath, projectPath, visibility, ownerId, randomUUID(), now, now, now).lastInsertRowid,
  );
  addMember(db, id, ownerId, 40);
  return { id, fullPath: `${ns.full_path}/${projectPath}` };
}

function addMember(db: Db, projectId: number, userId: number, level: number): void {
  const now = new Date().toISOString();
  db.prepare('INSERT INTO project_members (project_id, user_id, access_level, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(projectId, userId, level, now, now);
}

/** A project made through the API by `owner`. */
async function newProject(site: TestSite, owner: TestUser, visibility = 'private'): Promise<{ id: number; fullPath: string }> {
  const project = await createProject(site, { visibility }, owner.token);
  return { id: project.id, fullPath: project.path_with_namespace };
}

async function addProjectMember(site: TestSite, projectId: number, userId: number, level: number): Promise<void> {
  const response = await site.api(`/projects/${projectId}/members`, { method: 'POST', body: { user_id: userId, access_level: level } });
  expect(response.status).toBe(201);
}

interface Received {
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A local webhook receiver; `answer` decides each response (by call number, from 1); `undefined` never answers. */
async function startReceiver(answer: (call: number, request: Received) => number | undefined = () => 200, tls?: { key: string; cert: string }) {
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(request);
      const status = answer(received.length, request);
      if (status === undefined) {
        hanging.add(res);
        return;
      }
      res.writeHead(status, { 'content-type': 'text/plain' }).end(`answer ${received.length}`);
    });
  };
  const server: Server = tls ? createHttpsServer(tls, handler) : createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}/hook`,
    received,
    hanging,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function pushInput(projectId: number, overrides: Partial<PushInput> = {}): PushInput {
  return {
    user: { id: 1, name: 'Administrator', username: 'root', email: 'admin@example.com', avatar_url: null },
    project: {
      id: projectId,
      name: 'hooked',
      description: 'A hooked project',
      web_url: 'http://forge.example/root/hooked',
      avatar_url: null,
      git_ssh_url: 'git@forge.example:root/hooked.git',
      git_http_url: 'http://forge.example/root/hooked.git',
      namespace: 'Administrator',
      visibility_level: 0,
      path_with_namespace: 'root/hooked',
      default_branch: 'master',
      ci_config_path: null,
    },
    before: BLANK_SHA,
    after: 'a'.repeat(40),
    ref: 'refs/heads/master',
    commits: [
      {
        id: 'a'.repeat(40),
        message: 'Add README\n',
        timestamp: '2018-05-01T10:00:00+02:00',
        author: { name: 'Ada', email: 'ada@example.com' },
        added: ['README.md'],
        modified: [],
        removed: [],
      },
    ],
    ...overrides,
  };
}

const logsOf = (db: Db, hookId: number) =>
  db.prepare('SELECT * FROM web_hook_logs WHERE hook_id = ? ORDER BY id').all(hookId) as {
    attempt: number;
    event: string;
    url: string;
    request_headers: string;
    request_body: string;
    response_status: number | null;
    response_body: string | null;
    error: string | null;
    duration_ms: number;
  }[];

const queued = (db: Db) => db.prepare('SELECT count(*) FROM web_hook_queue').pluck().get() as number;

describe('project hooks API', () => {
  let site: TestSite;
  let owner: TestUser;
  let project: { id: number; fullPath: string };
  beforeAll(async () => {
    site = await startSite();
    owner = await createUser(site);
    project = await newProject(site, owner);
  });
  afterAll(() => site.stop());

  const hooksOf = (id: number | string) => `/projects/${typeof id === 'string' ? encodeURIComponent(id) : id}/hooks`;

  it('adds a hook with the documented defaults and never shows its token', async () => {
    const created = await site.api(hooksOf(project.id), { method: 'POST', as: owner.token, body: { url: 'http://example.com/hook', token: 's3cret' } });
    expect(created.status).toBe(201);
    expect(created.headers['content-type']).toBe('application/json');
    expect(created.body).toEqual({
      id: expect.any(Number),
      url: 'http://example.com/hook',
      project_id: project.id,
      push_events: true,
      issues_events: false,
      confidential_issues_events: false,
      merge_requests_events: false,
      tag_push_events: false,
      note_events: false,
      job_events: false,
      pipeline_events: false,
      wiki_page_events: false,
      releases_events: false,
      enable_ssl_verification: true,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
    expect(created.text).not.toContain('s3cret');
    const stored = site.site.db.prepare('SELECT token FROM project_hooks WHERE id = ?').pluck().get(created.body.id);
    expect(stored).toBe('s3cret');
  });

  it('sets every flag on create and edit, accepting both wiki_events and wiki_page_events', async () => {
    const allOn = Object.fromEntries(FLAGS.filter((name) => name !== 'wiki_page_events').map((name) => [name, true]));
    const created = await site.api(hooksOf(project.fullPath), {
      method: 'POST',
      as: owner.token,
      body: { url: 'https://example.com/all', ...allOn, wiki_events: true, enable_ssl_verification: false },
    });
    expect(created.status).toBe(201);
    for (const name of FLAGS) expect(created.body[name], name).toBe(true);
    expect(created.body.enable_ssl_verification).toBe(false);

    const hookUrl = `${hooksOf(project.id)}/${created.body.id}`;
    // python-gitlab's save() sends url plus the changed attributes; wiki_page_events is also accepted.
    const edited = await site.api(hookUrl, { method: 'PUT', as: owner.token, body: { url: 'https://example.com/edited', push_events: false, wiki_page_events: false, note_events: 'false' } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ id: created.body.id, url: 'https://example.com/edited', push_events: false, wiki_page_events: false, note_events: false, job_events: true, enable_ssl_verification: false });
    const wiki = await site.api(`${hookUrl}?url=https://example.com/edited&wiki_events=true`, { method: 'PUT', as: owner.token });
    expect(wiki.body.wiki_page_events).toBe(true);

    const one = await site.api(hookUrl, { as: owner.token });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(wiki.body);

    expect((await site.api(hookUrl, { method: 'PUT', as: owner.token, body: { push_events: true } })).body).toEqual({ message: 'url is missing' });

    const deleted = await site.api(hookUrl, { method: 'DELETE', as: owner.token });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    const gone = await site.api(hookUrl, { as: owner.token });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ message: '404 Project Hook Not Found' });
    expect((await site.api(hookUrl, { method: 'DELETE', as: owner.token })).status).toBe(404);
    expect((await site.api(hookUrl, { method: 'PUT', as: owner.token, body: { url: 'http://example.com' } })).status).toBe(404);
  });

  it('pages the list and keeps hooks to their project', async () => {
    const mine = await newProject(site, owner);
    const ids: number[] = [];
    for (const n of [1, 2, 3]) ids.push((await site.api(hooksOf(mine.id), { method: 'POST', as: owner.token, body: { url: `http://example.com/${n}` } })).body.id);
    const first = await site.api(`${hooksOf(mine.id)}?per_page=2`, { as: owner.token });
    expect(first.status).toBe(200);
    expect(first.body.map((hook: { id: number }) => hook.id)).toEqual(ids.slice(0, 2));
    expect(first.headers).toMatchObject({ 'x-total': '3', 'x-total-pages': '2', 'x-next-page': '2' });
    expect(first.headers.link).toContain('rel="next"');
    const second = await site.api(`${hooksOf(mine.id)}?per_page=2&page=2`, { as: owner.token });
    expect(second.body.map((hook: { id: number }) => hook.id)).toEqual(ids.slice(2));

    const other = await newProject(site, owner);
    expect((await site.api(`${hooksOf(other.id)}/${ids[0]}`, { as: owner.token })).body).toEqual({ message: '404 Project Hook Not Found' });
    expect((await site.api(hooksOf(other.id), { as: owner.token })).body).toEqual([]);
  });

  it('validates the URL and the hook id', async () => {
    const post = (body: unknown) => site.api(hooksOf(project.id), { method: 'POST', as: owner.token, body });
    const missing = await post({ push_events: true });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ message: 'url is missing' });
    for (const url of ['not a url', 'example.com/hook', 'http://', '/relative/hook', 'http:example.com']) {
      const response = await post({ url });
      expect(response.status, url).toBe(400);
      expect(response.body, url).toEqual({ message: { url: ['is invalid'] } });
    }
    for (const url of ['ftp://example.com/hook', 'file:///etc/passwd', 'javascript://example.com/%0aalert(1)']) {
      const response = await post({ url });
      expect(response.status, url).toBe(400);
      expect(response.body, url).toEqual({ message: { url: ['is blocked: Only allowed protocols are http, https'] } });
    }
    expect((await post({ url: 'http://example.com', push_events: 'maybe' })).body).toEqual({ message: 'push_events is invalid' });
    expect((await site.api(`${hooksOf(project.id)}/abc`, { as: owner.token })).body).toEqual({ message: 'hook_id is invalid' });
    expect((await site.api(`${hooksOf(project.id)}/999999`, { as: owner.token })).status).toBe(404);
  });

  it('needs maintainer access: 401 anonymous, 404 hidden, 403 below maintainer', async () => {
    const privateProject = await newProject(site, owner, 'private');
    const publicProject = await newProject(site, owner, 'public');
    const developer = await createUser(site);
    const maintainer = await createUser(site);
    const stranger = await createUser(site);
    await addProjectMember(site, privateProject.id, developer.id, 30);
    await addProjectMember(site, privateProject.id, maintainer.id, 40);
    const body = { url: 'http://example.com/perm' };

    for (const target of [privateProject, publicProject]) {
      const anonymous = await site.api(hooksOf(target.id), { as: null });
      expect(anonymous.status).toBe(401);
      expect(anonymous.body).toEqual({ message: '401 Unauthorized' });
      expect((await site.api(hooksOf(target.id), { method: 'POST', as: null, body })).status).toBe(401);
    }
    const hidden = await site.api(hooksOf(privateProject.id), { as: stranger.token });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: '404 Project Not Found' });
    expect((await site.api(hooksOf(privateProject.fullPath), { method: 'POST', as: stranger.token, body })).status).toBe(404);

    const below = await site.api(hooksOf(privateProject.id), { as: developer.token });
    expect(below.status).toBe(403);
    expect(below.body).toEqual({ message: '403 Forbidden' });
    expect((await site.api(hooksOf(privateProject.id), { method: 'POST', as: developer.token, body })).status).toBe(403);
    expect((await site.api(hooksOf(publicProject.id), { as: stranger.token })).status).toBe(403);

    const created = await site.api(hooksOf(privateProject.id), { method: 'POST', as: maintainer.token, body });
    expect(created.status).toBe(201);
    expect((await site.api(`${hooksOf(privateProject.id)}/${created.body.id}`, { method: 'DELETE', as: developer.token })).status).toBe(403);
    expect((await site.api(hooksOf(privateProject.id))).status).toBe(200); // the admin
    expect((await site.api('/projects/999999/hooks', { as: owner.token })).body).toEqual({ message: '404 Project Not Found' });
  });
});

describe('webhook deliveries from a site', () => {
  let site: TestSite;
  let owner: TestUser;
  beforeAll(async () => {
    site = await startSite();
    owner = await createUser(site);
  });
  afterAll(() => site.stop());

  const addHook = async (projectId: number, body: Record<string, unknown>) => {
    const response = await site.api(`/projects/${projectId}/hooks`, { method: 'POST', as: owner.token, body });
    expect(response.status).toBe(201);
    return response.body.id as number;
  };

  it('POSTs the payload with GitLab’s headers to the hooks switched on for the event, and logs each attempt', async () => {
    const receiver = await startReceiver();
    try {
      const project = await newProject(site, owner);
      const pushHook = await addHook(project.id, { url: receiver.url, token: 'shared-secret' });
      const tagHook = await addHook(project.id, { url: `${receiver.url}?tags`, push_events: false, tag_push_events: true });
      await addHook(project.id, { url: `${receiver.url}?off`, push_events: false });

      const payload = pushPayload(pushInput(project.id));
      const started = performance.now();
      expect(fireProjectHooks(site.site.ctx, { id: project.id }, 'push', payload)).toBe(1);
      expect(performance.now() - started).toBeLessThan(1000);
      await waitFor(() => receiver.received.length === 1, { message: 'push delivery' });
      const [push] = receiver.received;
      expect(push.headers).toMatchObject({
        'content-type': 'application/json',
        'x-gitlab-event': 'Push Hook',
        'x-gitlab-token': 'shared-secret',
        'user-agent': 'GitLab/10.8.0',
      });
      expect(JSON.parse(push.body)).toEqual(payload);

      expect(fireProjectHooks(site.site.ctx, { id: project.id }, 'tag_push', tagPushPayload(pushInput(project.id, { ref: 'refs/tags/v1.0' })))).toBe(1);
      await waitFor(() => receiver.received.length === 2, { message: 'tag push delivery' });
      const tag = receiver.received[1];
      expect(tag.headers['x-gitlab-event']).toBe('Tag Push Hook');
      expect(tag.headers['x-gitlab-token']).toBeUndefined();
      expect(JSON.parse(tag.body)).toMatchObject({ object_kind: 'tag_push', ref: 'refs/tags/v1.0' });
      expect(fireProjectHooks(site.site.ctx, { id: project.id }, 'issue', {})).toBe(0);

      const logs = await waitFor(() => (logsOf(site.site.db, pushHook).length === 1 ? logsOf(site.site.db, pushHook) : null));
      expect(logs[0]).toMatchObject({ attempt: 1, event: 'push', url: receiver.url, response_status: 200, response_body: 'answer 1', error: null });
      expect(JSON.parse(logs[0].request_headers)).toMatchObject({ 'X-Gitlab-Event': 'Push Hook', 'X-Gitlab-Token': '[REDACTED]' });
      expect(JSON.parse(logs[0].request_body)).toEqual(payload);
      await waitFor(() => logsOf(site.site.db, tagHook).length === 1);
      await waitFor(() => queued(site.site.db) === 0, { message: 'queue drained' });
    } finally {
      await receiver.close();
    }
  });

  it('fires nothing when the change that fired rolls back', async () => {
    const project = await newProject(site, owner);
    await addHook(project.id, { url: 'http://127.0.0.1:9/never' });
    const db = site.site.db;
    expect(() =>
      db.transaction(() => {
        expect(fireProjectHooks(site.site.ctx, project, 'push', {})).toBe(1);
        throw new Error('the change failed');
      })(),
    ).toThrow('the change failed');
    expect(queued(db)).toBe(0);
  });
});

describe('a dead receiver', () => {
  let site: TestSite;
  afterEach(() => site?.stop());

  it('does not slow API requests while its deliveries are pending, and the site still stops at once', async () => {
    site = await startSite();
    const owner = await createUser(site);
    const receiver = await startReceiver(() => undefined);
    const refused = `http://127.0.0.1:${await freePort()}/nobody-listens`;
    try {
      const project = await newProject(site, owner);
      expect((await site.api(`/projects/${project.id}/hooks`, { method: 'POST', as: owner.token, body: { url: receiver.url } })).status).toBe(201);
      expect((await site.api(`/projects/${project.id}/hooks`, { method: 'POST', as: owner.token, body: { url: refused } })).status).toBe(201);
      const twentyCalls = async () => {
        const started = performance.now();
        for (let i = 0; i < 20; i++) expect((await site.api(`/projects/${project.id}/hooks`, { as: owner.token })).status).toBe(200);
        return performance.now() - started;
      };
      await twentyCalls(); // warm up
      const baseline = await twentyCalls();

      for (let i = 0; i < 30; i++) fireProjectHooks(site.site.ctx, project, 'push', pushPayload(pushInput(project.id)));
      // Every delivery slot is now held by a receiver that never answers.
      await waitFor(() => receiver.hanging.size >= 4, { message: 'deliveries hanging' });
      const loaded = await twentyCalls();
      expect(receiver.hanging.size).toBeGreaterThan(0);
      expect(queued(site.site.db)).toBeGreaterThan(30);
      expect(loaded).toBeLessThan(baseline * 4 + 250);

      // Refused connections were logged and wait for a retry; stopping cancels the hanging attempts
      // (logged, not counted) instead of waiting out their timeout.
      await waitFor(() => site.site.db.prepare("SELECT count(*) FROM web_hook_logs WHERE error LIKE '%ECONNREFUSED%'").pluck().get() as number);
      const stopping = performance.now();
      await site.stop();
      expect(performance.now() - stopping).toBeLessThan(5000);
    } finally {
      await receiver.close();
    }
  });
});

describe('the delivery engine', () => {
  let dir: string;
  let db: Db;
  let projectId: number;
  const queues: HookQueue[] = [];
  const log = pino({ level: 'silent' });
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'geoforge-hooks-'));
    db = openDatabase(path.join(dir, 'engine.sqlite'));
    migrate(db);
    const user = await createUserRow(db, { username: 'engine', email: 'engine@example.com', name: 'Engine' });
    projectId = seedProject(db, user.id).id;
  });
  afterEach(async () => {
    await Promise.all(queues.splice(0).map((queue) => queue.stop()));
  });
  afterAll(async () => {
    db.close();
    await rm(dir, { recursive: true, force: true });
  });

  const engine = (role: 'primary' | 'secondary', database = db) => {
    // A generous delivery timeout: on a loaded machine a local answer can take seconds, and a timed-out
    // attempt would count as one more failure than the receiver answered (these tests count attempts).
    const queue = new HookQueue({ role, db: () => database, log, allowLocalRequests: () => true, retry: { baseMs: 20, capMs: 200 }, timeoutMs: 15_000 });
    queues.push(queue);
    queue.start();
    return queue;
  };
  const hook = (input: Partial<HookInput> & { url: string }, project = projectId, database = db) => createHook(database, 'project', project, input).id;

  it('retries 5xx with backoff: 500, 500, 200 makes three attempts, all logged', async () => {
    const receiver = await startReceiver((call) => (call <= 2 ? 500 : 200));
    try {
      const hookId = hook({ url: receiver.url });
      const queue = engine('primary');
      expect(fireProjectHooks({ db, webhooks: queue }, { id: projectId }, 'push', { n: 1 })).toBe(1);
      const logs = await waitFor(() => {
        const rows = logsOf(db, hookId);
        return rows.length === 3 ? rows : null;
      });
      expect(logs.map((row) => [row.attempt, row.response_status])).toEqual([
        [1, 500],
        [2, 500],
        [3, 200],
      ]);
      expect(receiver.received.map((request) => request.body)).toEqual(['{"n":1}', '{"n":1}', '{"n":1}']);
      await waitFor(() => queued(db) === 0);
    } finally {
      await receiver.close();
      db.prepare('DELETE FROM project_hooks').run();
    }
  });

  it('gives up after four attempts, and does not retry a 4xx', async () => {
    const failing = await startReceiver(() => 503);
    const rejecting = await startReceiver(() => 422);
    try {
      const failingHook = hook({ url: failing.url });
      const rejectingHook = hook({ url: rejecting.url, push_events: false, note_events: true });
      const queue = engine('primary');
      fireProjectHooks({ db, webhooks: queue }, { id: projectId }, 'push', {});
      fireProjectHooks({ db, webhooks: queue }, { id: projectId }, 'note', {});
      await waitFor(() => queued(db) === 0, { message: 'deliveries finished' });
      expect(logsOf(db, failingHook).map((row) => row.attempt)).toEqual([1, 2, 3, 4]);
      expect(failing.received).toHaveLength(4);
      expect(logsOf(db, rejectingHook).map((row) => [row.attempt, row.response_status])).toEqual([[1, 422]]);
      expect(rejecting.received[0].headers['x-gitlab-event']).toBe('Note Hook');
    } finally {
      await Promise.all([failing.close(), rejecting.close()]);
      db.prepare('DELETE FROM project_hooks').run();
    }
  });

  it('resumes a delivery cancelled by a stop when the next engine starts', async () => {
    const receiver = await startReceiver((call) => (call === 1 ? undefined : 200));
    try {
      const hookId = hook({ url: receiver.url });
      const first = engine('primary');
      fireProjectHooks({ db, webhooks: first }, { id: projectId }, 'push', { resumed: true });
      await waitFor(() => receiver.hanging.size === 1);
      await first.stop();
      expect(queued(db)).toBe(1);
      expect(logsOf(db, hookId)).toMatchObject([{ attempt: 1, response_status: null, error: 'cancelled: the site is stopping' }]);

      engine('primary');
      await waitFor(() => queued(db) === 0);
      expect(receiver.received).toHaveLength(2);
      expect(logsOf(db, hookId).map((row) => [row.attempt, row.response_status])).toEqual([
        [1, null],
        [1, 200],
      ]);
    } finally {
      await receiver.close();
      db.prepare('DELETE FROM project_hooks').run();
    }
  });

  it('honours enable_ssl_verification', async () => {
    const keyFile = path.join(dir, 'key.pem');
    const certFile = path.join(dir, 'cert.pem');
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=127.0.0.1'], { stdio: 'ignore' });
    const receiver = await startReceiver(() => 200, { key: await readFile(keyFile, 'utf8'), cert: await readFile(certFile, 'utf8') });
    try {
      const lenient = hook({ url: receiver.url, enable_ssl_verification: false });
      const strict = hook({ url: `${receiver.url}?strict`, enable_ssl_verification: true });
      const queue = new HookQueue({ role: 'primary', db: () => db, log, allowLocalRequests: () => true, maxAttempts: 1, timeoutMs: 2000 });
      queues.push(queue);
      queue.start();
      fireProjectHooks({ db, webhooks: queue }, { id: projectId }, 'push', {});
      await waitFor(() => queued(db) === 0);
      expect(logsOf(db, lenient)).toMatchObject([{ response_status: 200 }]);
      expect(logsOf(db, strict)).toMatchObject([{ response_status: null, error: expect.stringMatching(/certificate/i) }]);
      expect(receiver.received.map((request) => request.url)).toEqual(['/hook']);
    } finally {
      await receiver.close();
      db.prepare('DELETE FROM project_hooks').run();
    }
  });

  it('never delivers on a secondary', async () => {
    const receiver = await startReceiver();
    const otherDir = await mkdtemp(path.join(tmpdir(), 'geoforge-hooks-primary-'));
    const primaryDb = openDatabase(path.join(otherDir, 'primary.sqlite'));
    try {
      migrate(primaryDb);
      const user = await createUserRow(primaryDb, { username: 'control', email: 'control@example.com', name: 'Control' });
      const primaryProject = seedProject(primaryDb, user.id).id;
      hook({ url: `${receiver.url}?primary` }, primaryProject, primaryDb);
      const secondaryHook = hook({ url: `${receiver.url}?secondary` });

      const secondary = engine('secondary');
      expect(secondary.delivers).toBe(false);
      expect(fireProjectHooks({ db, webhooks: secondary }, { id: projectId }, 'push', {})).toBe(0);
      expect(queued(db)).toBe(0);
      // Even a delivery already in its table (say, from before a demotion) is never sent.
      db.prepare("INSERT INTO web_hook_queue (hook_id, event, body, next_attempt_at, created_at) VALUES (?, 'push', '{}', 0, '')").run(secondaryHook);

      // A primary fired after it is delivered; the secondary's row, due earlier, never was.
      const primary = engine('primary', primaryDb);
      expect(fireProjectHooks({ db: primaryDb, webhooks: primary }, { id: primaryProject }, 'push', {})).toBe(1);
      await waitFor(() => receiver.received.length === 1);
      await waitFor(() => queued(primaryDb) === 0);
      expect(receiver.received.map((request) => request.url)).toEqual(['/hook?primary']);
      expect(queued(db)).toBe(1);
      expect(logsOf(db, secondaryHook)).toEqual([]);
    } finally {
      await Promise.all(queues.splice(0).map((queue) => queue.stop()));
      primaryDb.close();
      await receiver.close();
      await rm(otherDir, { recursive: true, force: true });
      db.prepare('DELETE FROM project_hooks').run();
    }
  });
});
