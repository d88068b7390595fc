import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember, createProject, createUser, tokenFor, type TestUser } from '../helpers/factories.js';
import { gitClient, remoteUrl, startGitRemote, type GitRemote } from '../helpers/git.js';
import { waitFor } from '../helpers/multisite.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Push mirrors (issue 26, item 8) against a real remote: bare repositories served by git's own
 * http-backend on loopback, behind HTTP Basic credentials. After a push to the project and on
 * POST .../sync the site pushes there in the background; `git ls-remote` on the remote shows what
 * arrived. The site's log is captured at debug level: the credentials never show in it, nor in
 * any answer.
 */
describe('push mirrors', () => {
  const PASSWORD = 'Mirror-pw-9f3c1e7a';
  const WRONG = 'Wrong-pw-5d2b8c4f';
  let site: TestSite;
  let remote: GitRemote;
  let dir: string;
  let git: ReturnType<typeof gitClient>;
  let maintainer: TestUser;
  let developer: TestUser;
  let outsider: TestUser;
  let project: any;
  let work: string;
  const logLines: string[] = [];
  const answers: string[] = [];

  const api: TestSite['api'] = async (pathAndQuery, options) => {
    const response = await site.api(pathAndQuery, options);
    answers.push(response.text);
    return response;
  };
  const base = () => `/projects/${project.id}/remote_mirrors`;
  const mirrorUrl = (repo: string, password = PASSWORD) => `${remote.origin.replace('://', `://mirror-bot:${password}@`)}/${repo}.git`;
  const remoteRefs = async (repo: string): Promise<Record<string, string>> => {
    const { stdout } = await git(['ls-remote', path.join(dir, 'remotes', `${repo}.git`)]);
    return Object.fromEntries(stdout.trim().split('\n').filter(Boolean).map((line) => line.split('\t').reverse()).filter(([ref]) => !ref!.endsWith('^{}') && ref !== 'HEAD'));
  };
  const localRefs = async (): Promise<Record<string, string>> => {
    const { stdout } = await git(['ls-remote', remoteUrl(site.url, project, maintainer)]);
    return Object.fromEntries(stdout.trim().split('\n').filter(Boolean).map((line) => line.split('\t').reverse()).filter(([ref]) => /^refs\/(heads|tags)\//.test(ref!) && !ref!.endsWith('^{}')));
  };
  const mirrorState = async (id: number) => (await api(`${base()}/${id}`, { as: maintainer.token })).body;
  /** Waits for the mirror to settle in `status` after an update that started at or after `since`. */
  const settled = (id: number, status: string, since: string) =>
    waitFor(async () => {
      const state = await mirrorState(id);
      return state.update_status === status && state.last_update_at !== null && state.last_update_at >= since ? state : null;
    }, { timeoutMs: 20_000, message: `mirror ${id} ${status}` });
  const commit = async (file: string, ref: string, extra: string[] = []) => {
    await git(['commit', '--allow-empty', '-q', '-m', file], work);
    await git(['push', '-q', ...extra, remoteUrl(site.url, project, maintainer), `HEAD:${ref}`], work);
  };

  beforeAll(async () => {
    const sink = new Writable({ write: (chunk, _encoding, done) => (logLines.push(...String(chunk).split('\n').filter(Boolean)), done()) });
    site = await startSite({ remoteMirrorRetryBaseMs: 50 }, { log: pino({ level: 'debug' }, sink) });
    dir = await mkdtemp(path.join(tmpdir(), 'geoforge-mirrors-'));
    git = gitClient(path.join(dir, 'home'));
    for (const repo of ['all', 'protected', 'regex', 'redos', 'divergent', 'wrong']) await git(['init', '-q', '--bare', path.join(dir, 'remotes', `${repo}.git`)]);
    remote = await startGitRemote(path.join(dir, 'remotes'), { user: 'mirror-bot', password: PASSWORD });
    [maintainer, developer, outsider] = [await createUser(site), await createUser(site), await createUser(site)];
    project = await createProject(site, { name: 'mirrored', visibility: 'private' });
    await addMember(site, 'projects', project.id, maintainer, 40);
    await addMember(site, 'projects', project.id, developer, 30);
    work = path.join(dir, 'work');
    await git(['init', '-q', '-b', 'master', work]);
    await commit('one', 'refs/heads/master');
    await commit('two', 'refs/heads/feature');
    await git(['tag', '-a', '-m', 'v1', 'v1.0'], work);
    await git(['push', '-q', remoteUrl(site.url, project, maintainer), 'refs/tags/v1.0'], work);
  }, 60_000);
  afterAll(async () => {
    await site?.stop();
    await remote?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('answers the error rows: 401, insufficient scope 403, 404, 400', async () => {
    expect((await api(base(), { as: null })).status).toBe(401);
    // remote_mirrors.rb: `unauthorized! unless can?(current_user, :admin_remote_mirror, user_project)`.
    for (const [method, suffix] of [['GET', ''], ['POST', ''], ['GET', '/1'], ['PUT', '/1'], ['DELETE', '/1'], ['POST', '/1/sync']] as const) {
      const refused = await api(`${base()}${suffix}`, { method, as: developer.token, body: method === 'GET' ? undefined : { url: mirrorUrl('all') } });
      expect([method, suffix, refused.status, refused.body]).toEqual([method, suffix, 401, { message: '401 Unauthorized' }]);
    }
    expect((await api(base(), { as: outsider.token })).status).toBe(404);
    expect((await api(`/projects/999999/remote_mirrors`, { as: maintainer.token })).status).toBe(404);
    expect((await api(base(), { as: tokenFor(site, maintainer.id, ['read_user']) })).status).toBe(403);
    expect((await api(base(), { method: 'POST', as: tokenFor(site, maintainer.id, ['read_api']), body: { url: mirrorUrl('all') } })).status).toBe(403);
    expect((await api(`${base()}/999999`, { as: maintainer.token })).status).toBe(404);
    expect((await api(`${base()}/999999/sync`, { method: 'POST', as: maintainer.token })).status).toBe(404);

    const bad = async (body: Record<string, unknown>) => {
      const response = await api(base(), { method: 'POST', as: maintainer.token, body });
      expect(response.status, response.text).toBe(400);
      return response.body;
    };
    expect(await bad({})).toEqual({ message: 'url is missing' });
    expect(await bad({ url: 'ftp://foo:bar@example.com/x.git' })).toEqual({ message: { url: ['is blocked: Only allowed schemes are http, https'] } });
    expect(await bad({ url: 'ssh://git@example.com/x.git' })).toEqual({ message: { url: ['is blocked: Only allowed schemes are http, https'] } });
    expect(await bad({ url: 'not a url' })).toEqual({ message: { url: ['is invalid'] } });
    expect(await bad({ url: mirrorUrl('all'), auth_method: 'invalid' })).toEqual({ message: 'auth_method does not have a valid value' });
    expect((await bad({ url: mirrorUrl('all'), auth_method: 'ssh_public_key' })).message.auth_method[0]).toMatch(/ssh_public_key is not supported/);
    // A JSON null means "not given" here (GITLAB-NOTES W7); an empty value is GitLab's blank.
    expect(await bad({ url: mirrorUrl('all'), only_protected_branches: '' })).toEqual({ message: { only_protected_branches: ["can't be blank"] } });
    expect(await bad({ url: mirrorUrl('all'), enabled: 'maybe' })).toEqual({ message: 'enabled is invalid' });
    expect(await bad({ url: mirrorUrl('all'), mirror_branch_regex: '(' })).toEqual({ message: { mirror_branch_regex: ['is not a valid regular expression'] } });

    // The local-network rule of webhooks: with allow_local_requests_from_web_hooks_and_services off, loopback is refused.
    expect((await api('/application/settings', { method: 'PUT', body: { allow_local_requests_from_web_hooks_and_services: false } })).status).toBe(200);
    try {
      const refused = await bad({ url: mirrorUrl('all') });
      expect(refused.message.url[0]).toMatch(/^is blocked: Requests to the local network are not allowed/);
      expect((await bad({ url: 'http://localhost:1/x.git' })).message.url[0]).toMatch(/^is blocked:/);
    } finally {
      await api('/application/settings', { method: 'PUT', body: { allow_local_requests_from_web_hooks_and_services: true } });
    }
    expect((await api(base(), { as: maintainer.token })).body).toEqual([]);
  });

  it('pushes every branch and tag on create, after each push and on sync, masking the credentials', async () => {
    const since = new Date().toISOString();
    const created = await api(base(), { method: 'POST', as: maintainer.token, body: { url: mirrorUrl('all'), enabled: true } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      enabled: true,
      url: `${remote.origin.replace('://', '://*****:*****@')}/all.git`,
      update_status: expect.stringMatching(/^(scheduled|started|finished)$/),
      last_update_at: null,
      last_update_started_at: created.body.update_status === 'scheduled' ? null : expect.any(String),
      last_successful_update_at: null,
      last_error: null,
      only_protected_branches: false,
      keep_divergent_refs: false,
      auth_method: 'password',
      mirror_branch_regex: null,
      host_keys: [],
    });
    const id = created.body.id;
    const done = await settled(id, 'finished', since);
    expect(done).toMatchObject({ last_error: null, last_successful_update_at: done.last_update_at });
    expect(done.last_update_started_at <= done.last_update_at).toBe(true);
    expect(await remoteRefs('all')).toEqual(await localRefs());
    expect(Object.keys(await remoteRefs('all')).sort()).toEqual(['refs/heads/feature', 'refs/heads/master', 'refs/tags/v1.0']);
    // The credentials went as HTTP Basic, the remote's own check.
    expect(remote.authorizations.at(-1)).toBe(`Basic ${Buffer.from(`mirror-bot:${PASSWORD}`).toString('base64')}`);

    // A push moves master and deletes feature: the mirror follows.
    const afterPush = new Date().toISOString();
    await commit('three', 'refs/heads/master');
    await git(['push', '-q', remoteUrl(site.url, project, maintainer), ':refs/heads/feature'], work);
    await waitFor(async () => JSON.stringify(await remoteRefs('all')) === JSON.stringify(await localRefs()), { timeoutMs: 20_000, message: 'the push mirrored' });
    await settled(id, 'finished', afterPush);
    expect(await remoteRefs('all')).not.toHaveProperty('refs/heads/feature');

    // A ref pushed to the remote by someone else goes at the next sync (no keep_divergent_refs): the remote equals the project.
    const stray = path.join(dir, 'stray');
    await git(['clone', '-q', path.join(dir, 'remotes', 'all.git'), stray]);
    await git(['commit', '--allow-empty', '-q', '-m', 'stray'], stray);
    await git(['push', '-q', 'origin', 'HEAD:refs/heads/stray', 'HEAD:refs/heads/master', '--force'], stray);
    const beforeSync = new Date().toISOString();
    const sync = await api(`${base()}/${id}/sync`, { method: 'POST', as: maintainer.token });
    expect(sync.status, sync.text).toBe(204);
    await settled(id, 'finished', beforeSync);
    expect(await remoteRefs('all')).toEqual(await localRefs());

    const list = await api(base(), { as: maintainer.token });
    expect(list.headers['x-total']).toBe('1');
    expect(list.body.map((mirror: any) => mirror.id)).toEqual([id]);
  });

  it('mirrors only protected branches (and every tag) with only_protected_branches', async () => {
    await commit('four', 'refs/heads/topic');
    await commit('five', 'refs/heads/release-1');
    expect((await api(`/projects/${project.id}/protected_branches`, { method: 'POST', as: maintainer.token, body: { name: 'release-*' } })).status).toBe(201);
    const since = new Date().toISOString();
    const created = await api(base(), { method: 'POST', as: maintainer.token, body: { url: mirrorUrl('protected'), enabled: true, only_protected_branches: true } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.only_protected_branches).toBe(true);
    await settled(created.body.id, 'finished', since);
    const local = await localRefs();
    expect(await remoteRefs('protected')).toEqual({ 'refs/heads/master': local['refs/heads/master'], 'refs/heads/release-1': local['refs/heads/release-1'], 'refs/tags/v1.0': local['refs/tags/v1.0'] });
  });

  it('mirrors the branches mirror_branch_regex matches (ee), and fails an update whose regex runs too long', async () => {
    const since = new Date().toISOString();
    const created = await api(base(), { method: 'POST', as: maintainer.token, body: { url: mirrorUrl('regex'), enabled: true, mirror_branch_regex: '^rel' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ mirror_branch_regex: '^rel', only_protected_branches: false });
    await settled(created.body.id, 'finished', since);
    const local = await localRefs();
    expect(await remoteRefs('regex')).toEqual({ 'refs/heads/release-1': local['refs/heads/release-1'], 'refs/tags/v1.0': local['refs/tags/v1.0'] });
    const both = await api(base(), { method: 'POST', as: maintainer.token, body: { url: mirrorUrl('regex'), mirror_branch_regex: '^rel', only_protected_branches: true } });
    expect([both.status, both.body]).toEqual([400, { message: 'only_protected_branches and mirror_branch_regex are mutually exclusive' }]);

    // A catastrophic pattern against a long branch name: JavaScript's engine backtracks, the update is cut after a second.
    await commit('redos', `refs/heads/${'a'.repeat(40)}!`);
    const redosSince = new Date().toISOString();
    const redos = await api(base(), { method: 'POST', as: maintainer.token, body: { url: mirrorUrl('redos'), enabled: true, mirror_branch_regex: '^(a+)+$' } });
    expect(redos.status, redos.text).toBe(201);
    const failed = await settled(redos.body.id, 'failed', redosSince);
    expect(failed.last_error).toMatch(/timed out/);
    expect(await remoteRefs('redos')).toEqual({});
    expect((await api('/version')).status).toBe(200);
    await git(['push', '-q', remoteUrl(site.url, project, maintainer), `:refs/heads/${'a'.repeat(40)}!`], work);
  });

  it('skips and reports divergent refs with keep_divergent_refs, and fast-forwards the rest', async () => {
    const since = new Date().toISOString();
    const created = await api(base(), { method: 'POST', as: maintainer.token, body: { url: mirrorUrl('divergent'), enabled: true, keep_divergent_refs: true } });
    expect(created.status, created.text).toBe(201);
    await settled(created.body.id, 'finished', since);
    // Someone commits on the remote's master, and adds a branch there.
    const theirs = path.join(dir, 'theirs');
    await git(['clone', '-q', path.join(dir, 'remotes', 'divergent.git'), theirs]);
    await git(['commit', '--allow-empty', '-q', '-m', 'theirs'], theirs);
    await git(['push', '-q', 'origin', 'HEAD:refs/heads/master', 'HEAD:refs/heads/only-there'], theirs);
    const diverged = (await remoteRefs('divergent'))['refs/heads/master'];

    const afterPush = new Date().toISOString();
    await commit('six', 'refs/heads/master');
    await commit('seven', 'refs/heads/topic');
    const local = await localRefs();
    // Each push schedules an update: wait for the one that saw both (topic arrived, master skipped).
    await waitFor(async () => (await remoteRefs('divergent'))['refs/heads/topic'] === local['refs/heads/topic'], { timeoutMs: 20_000, message: 'topic mirrored' });
    const failed = await settled(created.body.id, 'failed', afterPush);
    expect(failed.last_error).toBe('Some refs have diverged and have not been updated on the remote:\n\nrefs/heads/master');
    const refs = await remoteRefs('divergent');
    expect(refs['refs/heads/master']).toBe(diverged);
    expect(refs['refs/heads/topic']).toBe(local['refs/heads/topic']);
    expect(refs['refs/heads/only-there']).toBe(diverged);
  });

  it('retries a refused push with backoff, then fails, with the credentials masked in last_error', async () => {
    const since = new Date().toISOString();
    const seen = remote.authorizations.length;
    const created = await api(base(), { method: 'POST', as: maintainer.token, body: { url: mirrorUrl('wrong', WRONG), enabled: true } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.url).not.toContain(WRONG);
    const failed = await settled(created.body.id, 'failed', since);
    expect(failed.last_error).toMatch(/401|Authentication failed|could not read/i);
    expect(failed.last_successful_update_at).toBeNull();
    // Three attempts (ls-remote each), every one with the given credentials; nothing arrived.
    const wrongBasic = `Basic ${Buffer.from(`mirror-bot:${WRONG}`).toString('base64')}`;
    expect(remote.authorizations.slice(seen).filter((header) => header === wrongBasic).length).toBeGreaterThanOrEqual(3);
    expect(await remoteRefs('wrong')).toEqual({});
    const retries = logLines.filter((line) => line.includes('remote mirror update failed') && line.includes(`"remote_mirror":${created.body.id},`));
    expect(retries.map((line) => JSON.parse(line).msg)).toEqual(['remote mirror update failed; retrying', 'remote mirror update failed; retrying', 'remote mirror update failed']);
  });

  it('updates and deletes a mirror; disabled, it refuses sync (400) and is not pushed', async () => {
    const [first] = (await api(base(), { as: maintainer.token })).body;
    const updated = await api(`${base()}/${first.id}`, { method: 'PUT', as: maintainer.token, body: { enabled: '0', only_protected_branches: 'true', keep_divergent_refs: true } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ id: first.id, enabled: false, only_protected_branches: true, keep_divergent_refs: true, url: first.url });
    const blank = await api(`${base()}/${first.id}`, { method: 'PUT', as: maintainer.token, body: { only_protected_branches: '' } });
    expect([blank.status, blank.body]).toEqual([400, { message: { only_protected_branches: ["can't be blank"] } }]);
    const regex = await api(`${base()}/${first.id}`, { method: 'PUT', as: maintainer.token, body: { mirror_branch_regex: '^rel' } });
    expect(regex.body).toMatchObject({ mirror_branch_regex: '^rel', only_protected_branches: false });
    const sync = await api(`${base()}/${first.id}/sync`, { method: 'POST', as: maintainer.token });
    expect([sync.status, sync.body]).toEqual([400, { message: 'Cannot proceed with the push mirroring. Please verify your mirror configuration.' }]);
    const before = await remoteRefs('all');
    await commit('eight', 'refs/heads/master');
    expect((await mirrorState(first.id)).update_status).not.toBe('scheduled');
    expect(await remoteRefs('all')).toEqual(before);

    expect((await api(`${base()}/${first.id}`, { method: 'DELETE', as: maintainer.token })).status).toBe(204);
    expect((await api(`${base()}/${first.id}`, { as: maintainer.token })).status).toBe(404);
    expect((await api(`${base()}/${first.id}`, { method: 'DELETE', as: maintainer.token })).status).toBe(404);
  });

  it('never shows the credentials in an answer or a log line', () => {
    const basic = (password: string) => Buffer.from(`mirror-bot:${password}`).toString('base64');
    expect(logLines.length).toBeGreaterThan(20);
    for (const secret of [PASSWORD, WRONG, basic(PASSWORD), basic(WRONG)]) {
      expect(answers.filter((text) => text.includes(secret))).toEqual([]);
      expect(logLines.filter((line) => line.includes(secret))).toEqual([]);
    }
  });
});
