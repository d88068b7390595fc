import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitError, runGit } from '../../src/git/cli.js';
import { repositoryPath } from '../../src/storage/layout.js';
import { BLANK_SHA } from '../../src/git/object-names.js';
import { addMembers, createProject, createUser, createUsers, type TestUser } from '../helpers/factories.js';
import { waitFor } from '../helpers/multisite.js';
import { gitClient, remoteUrl, startHookReceiver, type HookReceiver } from '../helpers/git.js';
import { startSite, type TestSite } from '../helpers/site.js';

describe('git smart HTTP', () => {
  let site: TestSite;
  let scratch: string;
  let owner: TestUser, developer: TestUser, reporter: TestUser, stranger: TestUser;
  let project: any;
  let receiver: HookReceiver;

  const git = (args: string[], cwd?: string) => gitClient(scratch, 20_000)(args, cwd);
  /** Runs git expecting failure; resolves to its stderr. */
  const gitFails = async (args: string[], cwd?: string) => {
    const error = await git(args, cwd).then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(GitError);
    return (error as GitError).stderr;
  };
  /** The project's HTTP URL, with the user's name and token in it when given. */
  const remote = (p: { path_with_namespace: string }, user: TestUser | null, suffix = '.git') => remoteUrl(site.url, p, user, suffix);
  const commitFile = async (work: string, file: string, content: string, message: string) => {
    await writeFile(path.join(work, file), content);
    await git(['add', '.'], work);
    await git(['commit', '--quiet', '-m', message], work);
    return (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
  };
  const bareRef = async (p: { id: number }, ref: string) =>
    (await runGit(['--git-dir', repositoryPath(site.dataDir, p.id), 'rev-parse', '--verify', '--quiet', ref]).catch(() => ({ stdout: '' }))).stdout.trim();
  const basic = (user: TestUser) => `Basic ${Buffer.from(`${user.username}:${user.token}`).toString('base64')}`;

  beforeAll(async () => {
    site = await startSite();
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-git-http-'));
    [owner, developer, reporter, stranger] = await createUsers(site, 4);
    project = await createProject(site, { visibility: 'private', default_branch: 'master' }, owner.token);
    await addMembers(site, 'projects', project.id, [[developer, 30], [reporter, 20]], owner.token);
    // The developer pushes to master here: its protection lets developers push (never force-push or delete).
    const protection = await site.api(`/projects/${project.id}/protected_branches`, { method: 'POST', as: owner.token, body: { name: 'master', push_access_level: 30, merge_access_level: 30 } });
    expect(protection.status).toBe(201);

    receiver = await startHookReceiver();
    const hook = await site.api(`/projects/${project.id}/hooks`, { method: 'POST', as: owner.token, body: { url: receiver.url, push_events: true, tag_push_events: true } });
    expect(hook.status).toBe(201);
  });
  afterAll(async () => {
    await site.stop();
    receiver.close();
    await rm(scratch, { recursive: true, force: true });
  });

  let work: string;
  let first: string;
  let second: string;

  it('clones an empty repository and pushes its first branch, firing a push hook', async () => {
    work = path.join(scratch, 'work');
    await git(['clone', '--quiet', remote(project, developer), work]);
    first = await commitFile(work, 'README.md', '# hello\n', 'first commit');
    await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/master'], work);
    expect(await bareRef(project, 'refs/heads/master')).toBe(first);

    const push = await waitFor(() => receiver.received.find((hook) => hook.body.object_kind === 'push' && hook.body.after === first), { message: 'push hook' });
    expect(push.headers['x-gitlab-event']).toBe('Push Hook');
    expect(push.body).toMatchObject({
      before: BLANK_SHA,
      after: first,
      ref: 'refs/heads/master',
      checkout_sha: first,
      user_id: developer.id,
      user_username: developer.username,
      project_id: project.id,
      total_commits_count: 1,
    });
    expect(push.body.commits).toHaveLength(1);
    expect(push.body.commits[0]).toMatchObject({ id: first, message: 'first commit\n', added: ['README.md'], modified: [], removed: [], author: { name: 'Test', email: 'test@example.com' } });
  });

  it('pushes further commits with the right before/after, and updates last_activity_at', async () => {
    const before = site.site.db.prepare('SELECT last_activity_at FROM projects WHERE id = ?').get(project.id) as { last_activity_at: string };
    await commitFile(work, 'a.txt', 'a\n', 'second');
    second = await commitFile(work, 'README.md', '# hello again\n', 'third');
    await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/master'], work);
    const push = await waitFor(() => receiver.received.find((hook) => hook.body.after === second), { message: 'second push hook' });
    expect(push.body).toMatchObject({ before: first, after: second, ref: 'refs/heads/master', total_commits_count: 2 });
    expect(push.body.commits.map((commit: any) => commit.message)).toEqual(['second\n', 'third\n']);
    expect(push.body.commits[1].modified).toEqual(['README.md']);
    const after = site.site.db.prepare('SELECT last_activity_at FROM projects WHERE id = ?').get(project.id) as { last_activity_at: string };
    expect(after.last_activity_at > before.last_activity_at).toBe(true);
  });

  it('pushes a branch and tags (tag push hook with the annotated message)', async () => {
    await git(['checkout', '--quiet', '-b', 'feature'], work);
    const feature = await commitFile(work, 'feature.txt', 'f\n', 'feature work');
    await git(['tag', '-a', 'v1.0', '-m', 'release one'], work);
    await git(['tag', 'light'], work);
    await git(['push', '--quiet', 'origin', 'feature', 'v1.0', 'light'], work);
    expect(await bareRef(project, 'refs/heads/feature')).toBe(feature);
    expect(await bareRef(project, 'refs/tags/light')).toBe(feature);
    const branch = await waitFor(() => receiver.received.find((hook) => hook.body.ref === 'refs/heads/feature'), { message: 'branch hook' });
    // A new branch reports the commits on no other branch.
    expect(branch.body).toMatchObject({ before: BLANK_SHA, after: feature, total_commits_count: 1 });
    const tag = await waitFor(() => receiver.received.find((hook) => hook.body.ref === 'refs/tags/v1.0'), { message: 'tag hook' });
    expect(tag.headers['x-gitlab-event']).toBe('Tag Push Hook');
    expect(tag.body).toMatchObject({ object_kind: 'tag_push', before: BLANK_SHA, message: 'release one' });
    expect(tag.body.commits.map((commit: any) => commit.id)).toEqual([feature]);
    // Force-pushing a branch other than the default one is allowed.
    await git(['reset', '--quiet', '--hard', 'HEAD~1'], work);
    const rewritten = await commitFile(work, 'other.txt', 'o\n', 'rewritten');
    await git(['push', '--quiet', '--force', 'origin', 'feature'], work);
    expect(await bareRef(project, 'refs/heads/feature')).toBe(rewritten);
  });

  it('clones a non-empty repository, with or without the .git suffix', async () => {
    const clone = path.join(scratch, 'reporter-clone');
    await git(['clone', '--quiet', remote(project, reporter), clone]);
    expect(await readFile(path.join(clone, 'README.md'), 'utf8')).toBe('# hello again\n');
    expect((await git(['rev-parse', 'HEAD'], clone)).stdout.trim()).toBe(second);
    const bare = path.join(scratch, 'no-suffix.git');
    await git(['clone', '--quiet', '--bare', remote(project, owner, ''), bare]);
    expect((await git(['--git-dir', bare, 'tag', '--list'])).stdout.split('\n').filter(Boolean).sort()).toEqual(['light', 'v1.0']);
  });

  it('refuses force-pushing and deleting the default branch, for maintainers too', async () => {
    await git(['checkout', '--quiet', '-B', 'master', second], work);
    await git(['reset', '--quiet', '--hard', first], work);
    await commitFile(work, 'rewrite.txt', 'r\n', 'rewrite history');
    const forced = await gitFails(['push', '--force', 'origin', 'HEAD:refs/heads/master'], work);
    expect(forced).toContain('You are not allowed to force push code to a protected branch on this project.');
    const deleted = await gitFails(['push', remote(project, owner), ':refs/heads/master'], work);
    expect(deleted).toContain('The default branch of a project cannot be deleted.');
    expect(await bareRef(project, 'refs/heads/master')).toBe(second);
    // Deleting another branch is fine.
    await git(['push', '--quiet', 'origin', ':refs/heads/feature'], work);
    expect(await bareRef(project, 'refs/heads/feature')).toBe('');
    const deletion = await waitFor(() => receiver.received.find((hook) => hook.body.ref === 'refs/heads/feature' && hook.body.after === BLANK_SHA), { message: 'deletion hook' });
    expect(deletion.body).toMatchObject({ checkout_sha: null, commits: [], total_commits_count: 0 });
  });

  it('refuses a reporter’s push with 403', async () => {
    const clone = path.join(scratch, 'reporter-clone');
    await commitFile(clone, 'r.txt', 'r\n', 'reporter work');
    const stderr = await gitFails(['push', 'origin', 'HEAD:refs/heads/reporter'], clone);
    expect(stderr).toContain('403');
    expect(stderr).toContain('You are not allowed to push code to this project.');
    expect(await bareRef(project, 'refs/heads/reporter')).toBe('');
  });

  it('refuses pushes to an archived project', async () => {
    const archived = await createProject(site, { visibility: 'private', default_branch: 'master' }, owner.token);
    expect((await site.api(`/projects/${archived.id}/archive`, { method: 'POST', as: owner.token })).status).toBe(201);
    const stderr = await gitFails(['push', remote(archived, owner), `${second}:refs/heads/master`], work);
    expect(stderr).toContain('You are not allowed to push code to an archived project');
    // Pulling still works.
    await git(['ls-remote', remote(archived, owner)]);
  });

  it('lets anyone clone a public project, and challenges or hides private ones', async () => {
    const open = await createProject(site, { visibility: 'public', default_branch: 'master' }, owner.token);
    await git(['push', '--quiet', remote(open, owner), `${second}:refs/heads/master`], work);
    const clone = path.join(scratch, 'anonymous-clone');
    await git(['clone', '--quiet', remote(open, null), clone]);
    expect((await git(['rev-parse', 'HEAD'], clone)).stdout.trim()).toBe(second);
    // Anonymous pushes are challenged even on public projects.
    const anonymousPush = await request(`${site.url}/${open.path_with_namespace}.git/info/refs?service=git-receive-pack`);
    expect(anonymousPush.statusCode).toBe(401);
    await anonymousPush.body.dump();

    const infoRefs = `${site.url}/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`;
    const anonymous = await request(infoRefs);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toBe('Basic realm="GitLab"');
    await anonymous.body.dump();
    const badToken = await request(infoRefs, { headers: { authorization: `Basic ${Buffer.from('oauth2:nope').toString('base64')}` } });
    expect(badToken.statusCode).toBe(401);
    await badToken.body.dump();
    const hidden = await request(infoRefs, { headers: { authorization: basic(stranger) } });
    expect(hidden.statusCode).toBe(404);
    await hidden.body.dump();
    const unknown = await request(`${site.url}/nobody/nothing.git/info/refs?service=git-upload-pack`, { headers: { authorization: basic(stranger) } });
    expect(unknown.statusCode).toBe(404);
    await unknown.body.dump();

    expect(await gitFails(['clone', '--quiet', remote(project, null), path.join(scratch, 'nope')])).toMatch(/Authentication failed|could not read Username|terminal prompts disabled/);
    expect(await gitFails(['clone', '--quiet', remote(project, stranger), path.join(scratch, 'nope2')])).toMatch(/not found|404/);
  });

  it('serves the advertisement with git’s headers and takes gzip request bodies', async () => {
    const advertised = await request(`${site.url}/${project.path_with_namespace}/info/refs?service=git-upload-pack`, { headers: { authorization: `Basic ${Buffer.from(`oauth2:${owner.token}`).toString('base64')}` } });
    expect(advertised.statusCode).toBe(200);
    expect(advertised.headers['content-type']).toBe('application/x-git-upload-pack-advertisement');
    expect(advertised.headers['cache-control']).toBe('no-cache, max-age=0, must-revalidate');
    const text = await advertised.body.text();
    expect(text.startsWith('001e# service=git-upload-pack\n0000')).toBe(true);
    expect(text).toContain(`${second} refs/heads/master`);

    const want = `want ${second}\n`;
    const body = gzipSync(Buffer.from(`${(want.length + 4).toString(16).padStart(4, '0')}${want}00000009done\n`));
    const response = await request(`${site.url}/${project.path_with_namespace}.git/git-upload-pack`, {
      method: 'POST',
      headers: { authorization: basic(owner), 'content-type': 'application/x-git-upload-pack-request', 'content-encoding': 'gzip' },
      body,
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/x-git-upload-pack-result');
    const result = Buffer.from(await response.body.arrayBuffer());
    expect(result.subarray(0, 8).toString()).toBe('0008NAK\n');
    expect(result.includes(Buffer.from('PACK'))).toBe(true);
  });
});

describe('git protocol versions over smart HTTP (the Git-Protocol header)', () => {
  let site: TestSite;
  let scratch: string;
  let owner: TestUser;
  const client = () => gitClient(scratch, 20_000);
  /** Runs git with `-c protocol.version=<version>` and the packet trace on; resolves to git's stderr (the trace). */
  const traced = async (version: number, args: string[], cwd?: string) =>
    (await client()(['-c', `protocol.version=${version}`, ...args], cwd, { GIT_TRACE_PACKET: '1' })).stderr;
  /** The protocol version the server answered in, read from the trace (`<` marks what a git process read): `version N`, else v0. */
  const answeredIn = (trace: string) => Number(/< version (\d)$/m.exec(trace)?.[1] ?? 0);
  const basic = (user: TestUser) => `Basic ${Buffer.from(`${user.username}:${user.token}`).toString('base64')}`;

  beforeAll(async () => {
    site = await startSite();
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-git-protocol-'));
    owner = await createUser(site);
  });
  afterAll(async () => {
    await site.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  for (const version of [0, 1, 2]) {
    it(`clones, pushes, fetches and lists refs with protocol.version=${version}`, async () => {
      const git = client();
      const project = await createProject(site, { visibility: 'private', default_branch: 'main' }, owner.token);
      const url = remoteUrl(site.url, project, owner);
      const work = path.join(scratch, `v${version}-work`);

      const cloneTrace = await traced(version, ['clone', '--quiet', url, work]);
      expect(answeredIn(cloneTrace)).toBe(version);
      // Only v2 tells a client the unborn branch an empty repository's HEAD names (ls-refs `unborn`).
      const clonedHead = (await git(['symbolic-ref', 'HEAD'], work)).stdout.trim();
      if (version === 2) expect(clonedHead).toBe('refs/heads/main');
      await git(['checkout', '--quiet', '-B', 'main'], work);
      await writeFile(path.join(work, 'README.md'), `# v${version}\n`);
      await git(['add', '.'], work);
      await git(['commit', '--quiet', '-m', 'first'], work);
      await git(['branch', 'feature-a'], work);
      await git(['tag', 'v1'], work);
      // A push speaks v0 for a v2 client (git has no v2 push) and v1 for a v1 client.
      const pushTrace = await traced(version, ['push', '--quiet', 'origin', 'main', 'feature-a', 'v1'], work);
      expect(answeredIn(pushTrace)).toBe(version === 1 ? 1 : 0);
      const first = (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
      expect((await runGit(['--git-dir', repositoryPath(site.dataDir, project.id), 'rev-parse', 'refs/heads/main', 'refs/heads/feature-a'])).stdout.split('\n').filter(Boolean)).toEqual([first, first]);

      const copy = path.join(scratch, `v${version}-copy`);
      await traced(version, ['clone', '--quiet', url, copy]);
      expect(await readFile(path.join(copy, 'README.md'), 'utf8')).toBe(`# v${version}\n`);

      await writeFile(path.join(work, 'more.txt'), 'more\n');
      await git(['add', '.'], work);
      await git(['commit', '--quiet', '-m', 'second'], work);
      await traced(version, ['push', '--quiet', 'origin', 'main'], work);
      const second = (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
      const fetchTrace = await traced(version, ['fetch', '--quiet', 'origin'], copy);
      expect(answeredIn(fetchTrace)).toBe(version);
      expect((await git(['rev-parse', 'origin/main'], copy)).stdout.trim()).toBe(second);

      // v2's ls-refs filters on the server: only the refs asked for travel.
      const listed = await client()(['-c', `protocol.version=${version}`, 'ls-remote', '--heads', url], copy, { GIT_TRACE_PACKET: '1' });
      expect(listed.stdout).toBe(`${first}\trefs/heads/feature-a\n${second}\trefs/heads/main\n`);
      if (version === 2) {
        expect(listed.stderr).toMatch(/> ref-prefix refs\/heads\/$/m);
        expect(listed.stderr).not.toMatch(/< [0-9a-f]{40} refs\/tags\/v1/);
      } else {
        expect(listed.stderr).toMatch(/< [0-9a-f]{40} refs\/tags\/v1/);
      }
    });
  }

  it('answers the ref advertisement in the version the header asks for, and in v0 for a header git could not read', async () => {
    const project = await createProject(site, { visibility: 'private', default_branch: 'master' }, owner.token);
    const advertise = async (service: string, gitProtocol?: string) => {
      const response = await request(`${site.url}/${project.path_with_namespace}.git/info/refs?service=${service}`, {
        headers: { authorization: basic(owner), ...(gitProtocol === undefined ? {} : { 'git-protocol': gitProtocol }) },
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe(`application/x-${service}-advertisement`);
      return response.body.text();
    };
    const v2 = await advertise('git-upload-pack', 'version=2');
    // As git's http-backend answers v2: the capabilities alone, no `# service=` line.
    expect(v2.startsWith('000eversion 2\n')).toBe(true);
    expect(v2).toMatch(/^[0-9a-f]{4}ls-refs/m);
    expect(v2).toContain('fetch=');
    const v1 = await advertise('git-upload-pack', 'version=1');
    expect(v1.startsWith('001e# service=git-upload-pack\n0000000eversion 1\n')).toBe(true);
    // Several words, the highest version wins, as in git's protocol.c.
    expect((await advertise('git-upload-pack', 'version=1:version=2')).startsWith('000eversion 2\n')).toBe(true);
    for (const unreadable of ['version 2', 'version=2;rm -rf /', 'x'.repeat(300)]) {
      const text = await advertise('git-upload-pack', unreadable);
      expect(text.startsWith('001e# service=git-upload-pack\n0000')).toBe(true);
      expect(text).not.toContain('version 2');
    }
    // receive-pack has no v2: it answers a v2 request in v0, with the service line.
    const push = await advertise('git-receive-pack', 'version=2');
    expect(push.startsWith('001f# service=git-receive-pack\n0000')).toBe(true);
    expect(push).not.toContain('version 2');
    expect((await advertise('git-receive-pack', 'version=1')).startsWith('001f# service=git-receive-pack\n0000000eversion 1\n')).toBe(true);
  });
});
