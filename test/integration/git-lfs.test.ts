import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitError } from '../../src/git/cli.js';
import { addMember, createProject, createUser, type TestUser } from '../helpers/factories.js';
import { waitFor } from '../helpers/multisite.js';
import { gitClient, remoteUrl, startHookReceiver, type HookReceiver } from '../helpers/git.js';
import { startSite, type TestSite } from '../helpers/site.js';

const LFS_TYPE = 'application/vnd.git-lfs+json';
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('git LFS and wikis over smart HTTP', () => {
  let site: TestSite;
  let scratch: string;
  let owner: TestUser;
  let reporter: TestUser;
  let stranger: TestUser;
  let project: any;
  let receiver: HookReceiver;

  const git = (args: string[], cwd?: string, extraEnv?: Record<string, string>) => gitClient(scratch, 60_000)(args, cwd, extraEnv);
  const remote = (p: { path_with_namespace: string }, user: TestUser | null, suffix = '.git') => remoteUrl(site.url, p, user, suffix);
  const basic = (user: TestUser) => `Basic ${Buffer.from(`${user.username}:${user.token}`).toString('base64')}`;
  const batch = (p: { path_with_namespace: string }, user: TestUser | null, operation: string, objects: { oid: string; size: number }[]) =>
    request(`${site.url}/${p.path_with_namespace}.git/info/lfs/objects/batch`, {
      method: 'POST',
      headers: { accept: LFS_TYPE, 'content-type': LFS_TYPE, ...(user ? { authorization: basic(user) } : {}) },
      body: JSON.stringify({ operation, objects }),
    });

  const big = randomBytes(5 * 1024 * 1024);
  const bigOid = sha256(big);

  beforeAll(async () => {
    site = await startSite();
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-git-lfs-'));
    owner = await createUser(site);
    reporter = await createUser(site);
    stranger = await createUser(site);
    project = await createProject(site, { visibility: 'private', default_branch: 'master' }, owner.token);
    await addMember(site, 'projects', project.id, reporter, 20, owner.token);
    receiver = await startHookReceiver();
    const hook = await site.api(`/projects/${project.id}/hooks`, { method: 'POST', as: owner.token, body: { url: receiver.url, wiki_page_events: true, push_events: false } });
    expect(hook.status).toBe(201);
  });
  afterAll(async () => {
    await site?.stop();
    receiver?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('pushes a 5 MiB LFS object and a fresh clone pulls it back with the same sha256', async () => {
    const work = path.join(scratch, 'work');
    await git(['clone', '--quiet', remote(project, owner), work]);
    await git(['lfs', 'install', '--local'], work);
    await git(['config', 'lfs.locksverify', 'false'], work);
    await git(['lfs', 'track', '*.bin'], work);
    await writeFile(path.join(work, 'blob.bin'), big);
    await git(['add', '.gitattributes', 'blob.bin'], work);
    await git(['commit', '--quiet', '-m', 'big binary'], work);
    await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/master'], work);

    const stored = path.join(site.dataDir, 'lfs-objects', bigOid.slice(0, 2), bigOid.slice(2, 4), bigOid);
    expect((await stat(stored)).size).toBe(big.length);

    const fresh = path.join(scratch, 'fresh');
    await git(['clone', '--quiet', remote(project, reporter), fresh], undefined, { GIT_LFS_SKIP_SMUDGE: '1' });
    await git(['lfs', 'install', '--local'], fresh);
    // Skipped smudge: the work tree holds the pointer until `git lfs pull`.
    expect((await readFile(path.join(fresh, 'blob.bin'), 'utf8')).startsWith('version https://git-lfs')).toBe(true);
    await git(['lfs', 'pull'], fresh);
    expect(sha256(await readFile(path.join(fresh, 'blob.bin')))).toBe(bigOid);
  });

  it('answers the batch API: download actions for members, per-object 404 for unknown objects, nothing for strangers', async () => {
    const ok = await batch(project, reporter, 'download', [{ oid: bigOid, size: big.length }, { oid: 'a'.repeat(64), size: 3 }]);
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toContain(LFS_TYPE);
    const body = (await ok.body.json()) as any;
    expect(body.transfer).toBe('basic');
    expect(body.objects[0]).toMatchObject({
      oid: bigOid,
      size: big.length,
      authenticated: true,
      actions: { download: { href: `${site.url}/${project.path_with_namespace}.git/gitlab-lfs/objects/${bigOid}`, header: { Authorization: basic(reporter) } } },
    });
    expect(body.objects[1]).toMatchObject({ oid: 'a'.repeat(64), error: { code: 404 } });

    // Upload of an object already stored and linked: no upload action.
    const upload = (await (await batch(project, owner, 'upload', [{ oid: bigOid, size: big.length }])).body.json()) as any;
    expect(upload.objects[0].actions).toBeUndefined();
    // A reporter may not upload.
    expect((await batch(project, reporter, 'upload', [{ oid: bigOid, size: big.length }])).statusCode).toBe(403);

    // A user without access can neither batch nor fetch the object.
    const denied = await batch(project, stranger, 'download', [{ oid: bigOid, size: big.length }]);
    expect(denied.statusCode).toBe(404);
    await denied.body.dump();
    const direct = await request(`${site.url}/${project.path_with_namespace}.git/gitlab-lfs/objects/${bigOid}`, { headers: { authorization: basic(stranger) } });
    expect(direct.statusCode).toBe(404);
    await direct.body.dump();
    const anonymous = await request(`${site.url}/${project.path_with_namespace}.git/gitlab-lfs/objects/${bigOid}`);
    expect(anonymous.statusCode).toBe(401);
    await anonymous.body.dump();
  });

  it('refuses a git lfs pull by a user without access', async () => {
    const other = await createProject(site, { visibility: 'private', default_branch: 'master' }, stranger.token);
    const work = path.join(scratch, 'stranger');
    await git(['clone', '--quiet', remote(other, stranger), work]);
    await git(['lfs', 'install', '--local'], work);
    await git(['config', 'lfs.url', `${remote(project, stranger)}/info/lfs`], work);
    await writeFile(path.join(work, 'blob.bin'), `version https://git-lfs.github.com/spec/v1\noid sha256:${bigOid}\nsize ${big.length}\n`);
    await writeFile(path.join(work, '.gitattributes'), '*.bin filter=lfs diff=lfs merge=lfs -text\n');
    await git(['add', '.'], work);
    await git(['commit', '--quiet', '-m', 'pointer to an object the stranger may not read'], work);
    const error = await git(['lfs', 'fetch'], work).then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).stderr).toMatch(/could not be found|Not Found|404/i);
    await expect(stat(path.join(work, '.git', 'lfs', 'objects', bigOid.slice(0, 2), bigOid.slice(2, 4), bigOid))).rejects.toThrow();
  });

  it('refuses a corrupted upload with 422 and stores nothing', async () => {
    const content = Buffer.from('the real content\n');
    const oid = sha256(content);
    const url = `${site.url}/${project.path_with_namespace}.git/gitlab-lfs/objects/${oid}/${content.length}`;
    const wrong = await request(url, { method: 'PUT', headers: { authorization: basic(owner), 'content-type': 'application/octet-stream' }, body: Buffer.from('something else!!\n') });
    expect(wrong.statusCode).toBe(422);
    await wrong.body.dump();
    await expect(stat(path.join(site.dataDir, 'lfs-objects', oid.slice(0, 2), oid.slice(2, 4), oid))).rejects.toThrow();
    const missing = (await (await batch(project, owner, 'download', [{ oid, size: content.length }])).body.json()) as any;
    expect(missing.objects[0].error.code).toBe(404);

    // A body longer than the declared size: refused by its length, or, sent chunked, cut off at the size; never stored.
    const longer = Buffer.concat([content, Buffer.alloc(4096, 1)]);
    const tooLong = await request(url, { method: 'PUT', headers: { authorization: basic(owner), 'content-type': 'application/octet-stream' }, body: longer });
    expect(tooLong.statusCode).toBe(422);
    await tooLong.body.dump();
    const chunked = await request(url, {
      method: 'PUT',
      headers: { authorization: basic(owner), 'content-type': 'application/octet-stream' },
      body: Readable.from([content, Buffer.alloc(1 << 20, 1), Buffer.alloc(1 << 20, 2)]),
    }).then(
      async (response) => {
        await response.body.dump();
        return response.statusCode;
      },
      (error: Error) => error.name,
    );
    expect([422, 'SocketError']).toContain(chunked);
    await expect(stat(path.join(site.dataDir, 'lfs-objects', oid.slice(0, 2), oid.slice(2, 4), oid))).rejects.toThrow();

    // A reporter may not upload at all.
    const reporterPut = await request(url, { method: 'PUT', headers: { authorization: basic(reporter) }, body: content });
    expect(reporterPut.statusCode).toBe(403);
    await reporterPut.body.dump();

    const right = await request(url, { method: 'PUT', headers: { authorization: basic(owner), 'content-type': 'application/octet-stream' }, body: content });
    expect(right.statusCode).toBe(200);
    await right.body.dump();
    const got = await request(`${site.url}/${project.path_with_namespace}.git/gitlab-lfs/objects/${oid}`, { headers: { authorization: basic(reporter) } });
    expect(got.statusCode).toBe(200);
    expect(Buffer.from(await got.body.arrayBuffer()).equals(content)).toBe(true);
  });

  it('reports lfs_objects_size in statistics', async () => {
    const response = await site.api(`/projects/${project.id}?statistics=true`, { as: owner.token });
    expect(response.status).toBe(200);
    expect(response.body.statistics.lfs_objects_size).toBe(big.length + 'the real content\n'.length);
    expect(response.body.statistics.storage_size).toBeGreaterThanOrEqual(big.length);
  });

  it('lets a fork download its source project objects', async () => {
    const fork = await site.api(`/projects/${project.id}/fork`, { method: 'POST', as: reporter.token, body: {} });
    expect(fork.status).toBe(201);
    await waitFor(
      async () => {
        const response = await site.api(`/projects/${fork.body.id}`, { as: reporter.token });
        return response.body.import_status === 'finished' ? response.body : null;
      },
      { message: 'fork finished' },
    );
    const body = (await (await batch(fork.body, reporter, 'download', [{ oid: bigOid, size: big.length }])).body.json()) as any;
    expect(body.objects[0].actions.download.href).toBe(`${site.url}/${fork.body.path_with_namespace}.git/gitlab-lfs/objects/${bigOid}`);
    const got = await request(body.objects[0].actions.download.href, { headers: body.objects[0].actions.download.header });
    expect(got.statusCode).toBe(200);
    expect(sha256(Buffer.from(await got.body.arrayBuffer()))).toBe(bigOid);
  });

  it('answers 404 when LFS is disabled on the project', async () => {
    const disabled = await createProject(site, { visibility: 'private', lfs_enabled: false }, owner.token);
    expect(disabled.lfs_enabled).toBe(false);
    const response = await batch(disabled, owner, 'download', [{ oid: bigOid, size: big.length }]);
    expect(response.statusCode).toBe(404);
    expect(((await response.body.json()) as any).message).toMatch(/LFS is not enabled/);
  });

  it('serves the wiki repository: push a page, clone it back, fire a wiki_page hook', async () => {
    const work = path.join(scratch, 'wiki');
    await git(['clone', '--quiet', remote(project, owner, '.wiki.git'), work]);
    await writeFile(path.join(work, 'home.md'), '# Welcome\n');
    await git(['add', 'home.md'], work);
    await git(['commit', '--quiet', '-m', 'add home page'], work);
    await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/master'], work);

    const back = path.join(scratch, 'wiki-back');
    await git(['clone', '--quiet', remote(project, reporter, '.wiki.git'), back]);
    expect(await readFile(path.join(back, 'home.md'), 'utf8')).toBe('# Welcome\n');

    const hook = await waitFor(() => receiver.received.find((item) => item.body.object_kind === 'wiki_page'), { message: 'wiki_page hook' });
    expect(hook.headers['x-gitlab-event']).toBe('Wiki Page Hook');
    expect(hook.body.object_attributes).toMatchObject({ slug: 'home', title: 'home', format: 'markdown', action: 'create', content: '# Welcome\n', message: 'add home page' });
    expect(hook.body.wiki.path_with_namespace).toBe(`${project.path_with_namespace}.wiki`);

    // A reporter may clone the wiki but not push to it; a stranger cannot see it.
    const strangerClone = await git(['clone', '--quiet', remote(project, stranger, '.wiki.git'), path.join(scratch, 'wiki-stranger')]).then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(strangerClone).toBeInstanceOf(GitError);
  });

  it('answers 404 for the wiki of a project with the wiki disabled', async () => {
    const noWiki = await createProject(site, { visibility: 'private', wiki_enabled: false }, owner.token);
    const response = await request(`${site.url}/${noWiki.path_with_namespace}.wiki.git/info/refs?service=git-upload-pack`, { headers: { authorization: basic(owner) } });
    expect(response.statusCode).toBe(404);
    await response.body.dump();
  });
});
