import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGit } from '../../src/git/cli.js';
import { BLANK_SHA } from '../../src/git/object-names.js';
import { addMembers, createProject, createUsers, type TestUser } from '../helpers/factories.js';
import { waitFor } from '../helpers/multisite.js';
import { startHookReceiver, type HookReceiver } from '../helpers/git.js';
import { startSite, type TestSite } from '../helpers/site.js';

describe('repository API', () => {
  let site: TestSite;
  let scratch: string;
  let owner: TestUser, developer: TestUser, reporter: TestUser, guest: TestUser, stranger: TestUser;
  let project: any;
  let receiver: HookReceiver;
  const repo = (suffix = '') => `/projects/${project.id}/repository${suffix}`;

  beforeAll(async () => {
    site = await startSite();
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-repo-api-'));
    [owner, developer, reporter, guest, stranger] = await createUsers(site, 5);
    project = await createProject(site, { visibility: 'private' }, owner.token);
    await addMembers(site, 'projects', project.id, [[developer, 30], [reporter, 20], [guest, 10]], owner.token);
    // Developers write to the default branch here: its protection lets them (GitLab's "developers can push").
    const protection = await site.api(`/projects/${project.id}/protected_branches`, { method: 'POST', as: owner.token, body: { name: 'main', push_access_level: 30, merge_access_level: 30 } });
    expect(protection.status).toBe(201);
    receiver = await startHookReceiver();
    const hook = await site.api(`/projects/${project.id}/hooks`, { method: 'POST', as: owner.token, body: { url: receiver.url, push_events: true } });
    expect(hook.status).toBe(201);
  });
  afterAll(async () => {
    await site.stop();
    receiver.close();
    await rm(scratch, { recursive: true, force: true });
  });

  let first: string;

  it('creates a file on an empty repository: the branch is created and becomes the default one', async () => {
    expect((await site.api(repo('/commits'), { as: developer.token })).body).toEqual([]);
    const created = await site.api(repo('/files/README.md'), { method: 'POST', as: developer.token, body: { branch: 'main', content: '# hello\n', commit_message: 'add readme' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ file_path: 'README.md', branch: 'main' });
    const again = await site.api(repo('/files/README.md'), { method: 'POST', as: developer.token, body: { branch: 'main', content: 'x', commit_message: 'again' } });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe('A file with this name already exists');
    const after = await site.api(`/projects/${project.id}`, { as: owner.token });
    expect(after.body.default_branch).toBe('main');
    const branch = await site.api(repo('/branches/main'), { as: reporter.token });
    expect(branch.status).toBe(200);
    expect(branch.body).toMatchObject({ name: 'main', protected: true, default: true, merged: false, commit: { title: 'add readme', author_email: developer.email } });
    first = branch.body.commit.id;
  });

  it('reads a file (base64 entity and raw), updates it, writes base64 content and deletes a file', async () => {
    const file = await site.api(repo('/files/README.md?ref=main'), { as: reporter.token });
    expect(file.status).toBe(200);
    expect(file.body).toMatchObject({ file_name: 'README.md', file_path: 'README.md', size: 8, encoding: 'base64', ref: 'main', commit_id: first, last_commit_id: first });
    expect(Buffer.from(file.body.content, 'base64').toString()).toBe('# hello\n');
    expect(file.body.content_sha256).toMatch(/^[0-9a-f]{64}$/);
    const raw = await site.api(repo('/files/README.md/raw?ref=main'), { as: reporter.token });
    expect(raw.status).toBe(200);
    expect(raw.text).toBe('# hello\n');
    expect((await site.api(repo('/files/nope.md?ref=main'), { as: reporter.token })).body.message).toBe('404 File Not Found');
    expect((await site.api(repo('/files/README.md?ref=nope'), { as: reporter.token })).body.message).toBe('404 Commit Not Found');

    const updated = await site.api(repo('/files/README.md'), { method: 'PUT', as: developer.token, body: { branch: 'main', content: '# hello again\n', commit_message: 'update readme' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ file_path: 'README.md', branch: 'main' });
    const missing = await site.api(repo('/files/missing.md'), { method: 'PUT', as: developer.token, body: { branch: 'main', content: 'x', commit_message: 'nope' } });
    expect(missing.status).toBe(400);

    const bytes = Buffer.from([0, 1, 2, 255, 10]);
    const binary = await site.api(repo('/files/dir%2Fdata.bin'), {
      method: 'POST',
      as: developer.token,
      body: { branch: 'main', content: bytes.toString('base64'), encoding: 'base64', commit_message: 'binary' },
    });
    expect(binary.status).toBe(201);
    expect(binary.body.file_path).toBe('dir/data.bin');
    const read = await site.api(repo('/files/dir%2Fdata.bin?ref=main'), { as: reporter.token });
    expect(Buffer.from(read.body.content, 'base64')).toEqual(bytes);

    await site.api(repo('/files/tmp.txt'), { method: 'POST', as: developer.token, body: { branch: 'main', content: 'tmp', commit_message: 'tmp' } });
    const deleted = await site.api(repo('/files/tmp.txt?branch=main&commit_message=remove%20tmp'), { method: 'DELETE', as: developer.token });
    expect(deleted.status).toBe(204);
    expect((await site.api(repo('/files/tmp.txt?ref=main'), { as: reporter.token })).status).toBe(404);
  });

  it('lists commits (paginated, path filter), shows one with stats and its diff', async () => {
    const list = await site.api(repo('/commits?ref_name=main&per_page=2'), { as: reporter.token });
    expect(list.status).toBe(200);
    expect(list.body.map((c: any) => c.title)).toEqual(['remove tmp', 'tmp']);
    expect(list.headers['x-total']).toBe('5');
    const page3 = await site.api(repo('/commits?per_page=2&page=3'), { as: reporter.token });
    expect(page3.body.map((c: any) => c.title)).toEqual(['add readme']);
    const byPath = await site.api(repo('/commits?path=README.md'), { as: reporter.token });
    expect(byPath.body.map((c: any) => c.title)).toEqual(['update readme', 'add readme']);

    const update = byPath.body[0];
    const one = await site.api(repo(`/commits/${update.id}`), { as: reporter.token });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: update.id, short_id: update.id.slice(0, 8), parent_ids: [first], message: 'update readme', stats: { additions: 1, deletions: 1, total: 2 } });
    expect(one.body.committer_email).toBe(developer.email);
    const diff = await site.api(repo(`/commits/${update.id}/diff`), { as: reporter.token });
    expect(diff.body).toEqual([
      {
        old_path: 'README.md',
        new_path: 'README.md',
        a_mode: '100644',
        b_mode: '100644',
        diff: '@@ -1 +1 @@\n-# hello\n+# hello again\n',
        new_file: false,
        renamed_file: false,
        deleted_file: false,
      },
    ]);
    const root = await site.api(repo(`/commits/${first}/diff`), { as: reporter.token });
    expect(root.body[0]).toMatchObject({ new_file: true, a_mode: '0', b_mode: '100644', new_path: 'README.md' });
    expect((await site.api(repo('/commits/0123456789abcdef0123456789abcdef01234567'), { as: reporter.token })).body.message).toBe('404 Commit Not Found');
  });

  it('makes one commit from several actions, and refuses a bad one naming it', async () => {
    const made = await site.api(repo('/commits'), {
      method: 'POST',
      as: developer.token,
      body: {
        branch: 'main',
        commit_message: 'several',
        actions: [
          { action: 'create', file_path: 'a.txt', content: 'a\n' },
          { action: 'update', file_path: 'README.md', content: '# three\n' },
          { action: 'move', file_path: 'data/moved.bin', previous_path: 'dir/data.bin' },
          { action: 'chmod', file_path: 'a.txt', execute_filemode: true },
        ],
      },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ title: 'several', project_id: project.id });
    const diff = await site.api(repo(`/commits/${made.body.id}/diff`), { as: reporter.token });
    const byPath = Object.fromEntries(diff.body.map((d: any) => [d.new_path, d]));
    expect(byPath['a.txt']).toMatchObject({ new_file: true, b_mode: '100755' });
    expect(byPath['data/moved.bin']).toMatchObject({ renamed_file: true, old_path: 'dir/data.bin' });
    const bad = await site.api(repo('/commits'), {
      method: 'POST',
      as: developer.token,
      body: { branch: 'main', commit_message: 'bad', actions: [{ action: 'create', file_path: 'b.txt', content: 'b' }, { action: 'delete', file_path: 'gone.txt' }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('actions[1]');
    const wrong = await site.api(repo('/commits'), { method: 'POST', as: developer.token, body: { branch: 'main', commit_message: 'x', actions: [{ action: 'explode', file_path: 'x' }] } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe('actions[0] action does not have a valid value');
  });

  it('creates, gets, lists and deletes branches, encoded names included; the default branch cannot be removed', async () => {
    const created = await site.api(repo('/branches'), { method: 'POST', as: developer.token, body: { branch: 'feature/x', ref: 'main' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'feature/x', protected: false, merged: false, default: false });
    expect((await site.api(repo('/branches'), { method: 'POST', as: developer.token, body: { branch: 'feature/x', ref: 'main' } })).body.message).toBe('Branch already exists');
    expect((await site.api(repo('/branches'), { method: 'POST', as: developer.token, body: { branch: 'other', ref: 'nope' } })).body.message).toBe('Invalid reference name');
    const got = await site.api(repo('/branches/feature%2Fx'), { as: reporter.token });
    expect(got.body.name).toBe('feature/x');
    expect((await site.api(repo('/branches/nope'), { as: reporter.token })).body.message).toBe('404 Branch Not Found');

    const onFeature = await site.api(repo('/files/f.txt'), { method: 'POST', as: developer.token, body: { branch: 'feature/x', content: 'f', commit_message: 'feature' } });
    expect(onFeature.status).toBe(201);
    const list = await site.api(repo('/branches?search=feat'), { as: reporter.token });
    expect(list.body.map((b: any) => b.name)).toEqual(['feature/x']);
    expect((await site.api(repo('/branches'), { as: reporter.token })).headers['x-total']).toBe('2');

    const compare = await site.api(repo('/compare?from=main&to=feature%2Fx'), { as: reporter.token });
    expect(compare.status).toBe(200);
    expect(compare.body).toMatchObject({ compare_timeout: false, compare_same_ref: false, commit: { title: 'feature' } });
    expect(compare.body.commits.map((c: any) => c.title)).toEqual(['feature']);
    expect(compare.body.diffs).toMatchObject([{ new_path: 'f.txt', new_file: true }]);
    const same = await site.api(repo('/compare?from=main&to=main'), { as: reporter.token });
    expect(same.body).toMatchObject({ commit: null, commits: [], diffs: [], compare_same_ref: true });

    const main = await site.api(repo('/branches/main'), { method: 'DELETE', as: owner.token });
    expect(main.status).toBe(405);
    expect(main.body.message).toBe('Cannot remove the default branch');
    expect((await site.api(repo('/branches/feature%2Fx'), { method: 'DELETE', as: developer.token })).status).toBe(204);
    expect((await site.api(repo('/branches/feature%2Fx'), { as: reporter.token })).status).toBe(404);
  });

  it('refuses a branch or tag delete with 412 when its commit is newer than If-Unmodified-Since (SPEC "Errors")', async () => {
    const old = { 'if-unmodified-since': 'Sat, 01 Jan 2000 00:00:00 GMT' };
    const later = { 'if-unmodified-since': new Date(Date.now() + 3_600_000).toUTCString() };
    expect((await site.api(repo('/branches'), { method: 'POST', as: developer.token, body: { branch: 'guarded', ref: 'main' } })).status).toBe(201);
    const stale = await site.api(repo('/branches/guarded'), { method: 'DELETE', headers: old, as: developer.token });
    expect(stale).toMatchObject({ status: 412, body: { message: '412 Precondition Failed' } });
    expect((await site.api(repo('/branches/guarded'), { as: reporter.token })).status).toBe(200);
    expect((await site.api(repo('/branches/guarded'), { method: 'DELETE', headers: later, as: developer.token })).status).toBe(204);

    expect((await site.api(repo('/tags'), { method: 'POST', as: owner.token, body: { tag_name: 'guarded-tag', ref: 'main', message: 'annotated' } })).status).toBe(201);
    expect((await site.api(repo('/tags/guarded-tag'), { method: 'DELETE', headers: old, as: owner.token })).status).toBe(412);
    expect((await site.api(repo('/tags/guarded-tag'), { as: reporter.token })).status).toBe(200);
    expect((await site.api(repo('/tags/guarded-tag'), { method: 'DELETE', headers: later, as: owner.token })).status).toBe(204);
  });

  it('fires a push hook for an API commit', async () => {
    const made = await site.api(repo('/files/hooked.txt'), { method: 'POST', as: developer.token, body: { branch: 'main', content: 'h', commit_message: 'hooked' } });
    expect(made.status).toBe(201);
    const sha = (await site.api(repo('/branches/main'), { as: reporter.token })).body.commit.id;
    const { body: push } = await waitFor(() => receiver.received.find(({ body }) => body.object_kind === 'push' && body.after === sha), { message: 'push hook' });
    expect(push).toMatchObject({ ref: 'refs/heads/main', user_username: developer.username, total_commits_count: 1 });
    expect(push.commits[0]).toMatchObject({ message: 'hooked', added: ['hooked.txt'] });
    // The first commit of the repository was announced as a new branch.
    expect(receiver.received.some(({ body }) => body.before === BLANK_SHA && body.after === first)).toBe(true);
  });

  it('a clone over smart HTTP sees the API-made commits', async () => {
    const work = path.join(scratch, 'clone');
    const url = `${site.url.replace('://', `://${reporter.username}:${reporter.token}@`)}/${project.path_with_namespace}.git`;
    await runGit(['clone', '--quiet', url, work], { env: { HOME: scratch, GIT_CONFIG_NOSYSTEM: '1' }, timeoutMs: 20_000 });
    expect(await readFile(path.join(work, 'README.md'), 'utf8')).toBe('# three\n');
    expect(await readFile(path.join(work, 'hooked.txt'), 'utf8')).toBe('h');
    const { stdout } = await runGit(['-C', work, 'log', '--format=%s', '-1']);
    expect(stdout.trim()).toBe('hooked');
  });

  it('answers the permission codes', async () => {
    const write = { method: 'POST', body: { branch: 'main', content: 'x', commit_message: 'x' } };
    expect((await site.api(repo('/files/p.txt'), { ...write, as: null })).status).toBe(401);
    expect((await site.api(repo('/files/p.txt'), { ...write, as: stranger.token })).status).toBe(404);
    expect((await site.api(repo('/files/p.txt'), { ...write, as: reporter.token })).status).toBe(403);
    expect((await site.api(repo('/branches'), { method: 'POST', as: reporter.token, body: { branch: 'r', ref: 'main' } })).status).toBe(403);
    expect((await site.api(repo('/branches'), { as: guest.token })).status).toBe(403);
    expect((await site.api(repo('/branches'), { as: null })).status).toBe(404);
    expect((await site.api(repo('/commits'), { as: stranger.token })).status).toBe(404);

    const open = await createProject(site, { visibility: 'public' }, owner.token);
    await site.api(`/projects/${open.id}/repository/files/README.md`, { method: 'POST', as: owner.token, body: { branch: 'master', content: 'pub', commit_message: 'pub' } });
    const anonymous = await site.api(`/projects/${open.id}/repository/files/README.md/raw?ref=master`, { as: null });
    expect(anonymous.status).toBe(200);
    expect(anonymous.text).toBe('pub');
    expect((await site.api(`/projects/${open.id}/repository/files/x.txt`, { ...write, as: stranger.token })).status).toBe(403);
    expect((await site.api(`/projects/${open.id}/repository/files/x.txt`, { ...write, as: null })).status).toBe(401);

    await site.api(`/projects/${project.id}/archive`, { method: 'POST', as: owner.token });
    expect((await site.api(repo('/files/p.txt'), { ...write, as: developer.token })).status).toBe(403);
    await site.api(`/projects/${project.id}/unarchive`, { method: 'POST', as: owner.token });
  });
});
