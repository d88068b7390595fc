import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGit } from '../../src/git/cli.js';
import { repositoryPath } from '../../src/storage/layout.js';
import { addMembers, createProject, createUsers, type TestUser } from '../helpers/factories.js';
import { gitClient, remoteUrl } from '../helpers/git.js';
import { ROOT_TOKEN, startSite, type TestSite } from '../helpers/site.js';

const exec = promisify(execFile);

/**
 * Browsing a repository through the API (issue 17, item 1): tree, blobs, archives, compare,
 * contributors, merge base, file metadata headers and blame, every branch's commits and the refs
 * holding a commit, on a real repository pushed over smart HTTP.
 */
describe('repository browsing API', () => {
  let site: TestSite;
  let scratch: string;
  let work: string;
  let owner: TestUser, reporter: TestUser, guest: TestUser, stranger: TestUser;
  let project: any;
  const sha: Record<string, string> = {};
  const repo = (suffix = '') => `/projects/${project.id}/repository${suffix}`;
  const git = (args: string[], extraEnv: Record<string, string> = {}) => gitClient(scratch, 20_000)(args, work, extraEnv);
  const commit = async (files: Record<string, string | Buffer>, message: string, author = 'Alice <alice@example.com>') => {
    for (const [file, content] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(work, file)), { recursive: true });
      await writeFile(path.join(work, file), content);
    }
    await git(['add', '.']);
    await git(['commit', '--quiet', '-m', message, `--author=${author}`]);
    return (await git(['rev-parse', 'HEAD'])).stdout.trim();
  };

  beforeAll(async () => {
    site = await startSite();
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-browse-'));
    work = path.join(scratch, 'work');
    [owner, reporter, guest, stranger] = await createUsers(site, 4);
    project = await createProject(site, { visibility: 'private', default_branch: 'main' }, owner.token);
    await addMembers(site, 'projects', project.id, [[reporter, 20], [guest, 10]], owner.token);

    await runGit(['init', '--quiet', '-b', 'main', work]);
    sha.first = await commit({ 'README.md': '# hello\n', 'docs/guide.md': 'guide\n', 'src/a.txt': 'a\n', 'src/lib/b.txt': 'b\n', 'bin.dat': Buffer.from([0, 1, 2, 3]) }, 'first');
    await git(['branch', 'feature']);
    await git(['tag', '-a', 'v0', '-m', 'v0']);
    sha.second = await commit({ 'README.md': '# hello\nsecond line\n' }, 'second', 'Bob <bob@example.com>');
    sha.third = await commit({ 'README.md': '# hello\nsecond line\nthird line\n' }, 'third');
    await git(['tag', 'v1']);
    await git(['checkout', '--quiet', 'feature']);
    sha.feature = await commit({ 'feature.txt': 'feature\n' }, 'feature work', 'Carol <carol@example.com>');
    await git(['checkout', '--quiet', '--orphan', 'orphan']);
    await git(['rm', '-r', '--quiet', '--cached', '.']);
    await rm(path.join(work, 'feature.txt'));
    sha.orphan = await commit({ 'orphan.txt': 'alone\n' }, 'orphan root');
    await git(['checkout', '--quiet', 'main']);
    await git(['push', '--quiet', remoteUrl(site.url, project, owner), 'main', 'feature', 'orphan', 'v0', 'v1']);
  });
  afterAll(async () => {
    await site.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it('lists a tree: directories first, a path, recursive, paged; 404 Tree for an unknown ref', async () => {
    const root = await site.api(repo('/tree'), { as: reporter.token });
    expect(root.status).toBe(200);
    expect(root.body.map((e: any) => [e.type, e.path])).toEqual([
      ['tree', 'docs'],
      ['tree', 'src'],
      ['blob', 'README.md'],
      ['blob', 'bin.dat'],
    ]);
    expect(root.body[0]).toMatchObject({ name: 'docs', mode: '040000', id: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(root.body[2]).toMatchObject({ name: 'README.md', mode: '100644' });
    const src = await site.api(repo('/tree?path=src%2F&ref=main'), { as: reporter.token });
    expect(src.body.map((e: any) => e.path)).toEqual(['src/lib', 'src/a.txt']);
    expect(src.body[0].name).toBe('lib');
    const recursive = await site.api(repo('/tree?recursive=true&per_page=3'), { as: reporter.token });
    expect(recursive.body.map((e: any) => e.path)).toEqual(['docs', 'src', 'src/lib']);
    expect(recursive.headers['x-total']).toBe('8');
    expect(recursive.headers['x-total-pages']).toBe('3');
    const page3 = await site.api(repo('/tree?recursive=true&per_page=3&page=3'), { as: reporter.token });
    expect(page3.body.map((e: any) => e.path)).toEqual(['src/a.txt', 'src/lib/b.txt']);
    const feature = await site.api(repo('/tree?ref=feature'), { as: reporter.token });
    expect(feature.body.map((e: any) => e.path)).toContain('feature.txt');
    expect((await site.api(repo('/tree?path=nowhere'), { as: reporter.token })).body).toEqual([]);
    expect((await site.api(repo('/tree?path=README.md'), { as: reporter.token })).body).toEqual([]);
    const unknown = await site.api(repo('/tree?ref=nope'), { as: reporter.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('404 Tree Not Found');
    expect((await site.api(repo('/tree?recursive=maybe'), { as: reporter.token })).status).toBe(400);
  });

  it('refuses a guest of a private project (403), and hides it from outsiders and anonymous callers (404)', async () => {
    for (const suffix of ['/tree', '/blobs/' + sha.first, '/archive', '/contributors', '/merge_base?refs[]=main&refs[]=feature', `/commits/${sha.first}/refs`]) {
      expect((await site.api(repo(suffix), { as: guest.token })).status, suffix).toBe(403);
      expect((await site.api(repo(suffix), { as: stranger.token })).status, suffix).toBe(404);
      expect((await site.api(repo(suffix), { as: null })).status, suffix).toBe(404);
    }
    expect((await site.api(repo('/tree'), { as: 'not-a-token' })).status).toBe(401);
  });

  it('reads a blob (base64 and raw, abbreviated ids too); 404 Blob for anything else', async () => {
    const readme = (await site.api(repo('/tree'), { as: reporter.token })).body.find((e: any) => e.name === 'README.md');
    const blob = await site.api(repo(`/blobs/${readme.id}`), { as: reporter.token });
    expect(blob.status).toBe(200);
    expect(blob.body).toEqual({ size: 31, encoding: 'base64', content: Buffer.from('# hello\nsecond line\nthird line\n').toString('base64'), sha: readme.id });
    expect((await site.api(repo(`/blobs/${readme.id.slice(0, 10)}`), { as: reporter.token })).body.sha).toBe(readme.id);
    const raw = await site.api(repo(`/blobs/${readme.id}/raw`), { as: reporter.token });
    expect(raw.status).toBe(200);
    expect(raw.text).toBe('# hello\nsecond line\nthird line\n');
    expect(raw.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(raw.headers['content-length']).toBe('31');
    const bin = (await site.api(repo('/tree'), { as: reporter.token })).body.find((e: any) => e.name === 'bin.dat');
    const binary = await request(`${site.url}/api/v4${repo(`/blobs/${bin.id}/raw`)}`, { headers: { 'private-token': reporter.token } });
    expect(binary.headers['content-type']).toBe('application/octet-stream');
    expect(Buffer.from(await binary.body.arrayBuffer())).toEqual(Buffer.from([0, 1, 2, 3]));
    for (const bad of ['nothex', sha.first, '0123456789abcdef0123456789abcdef01234567']) {
      const missing = await site.api(repo(`/blobs/${bad}`), { as: reporter.token });
      expect(missing.status, bad).toBe(404);
      expect(missing.body.message).toBe('404 Blob Not Found');
      expect((await site.api(repo(`/blobs/${bad}/raw`), { as: reporter.token })).status).toBe(404);
    }
  });

  /** Downloads an archive into a fresh directory; returns the directory and the response's headers. */
  const download = async (suffix: string) => {
    const response = await request(`${site.url}/api/v4${repo(suffix)}`, { headers: { 'private-token': reporter.token } });
    const body = Buffer.from(await response.body.arrayBuffer());
    const dir = await mkdtemp(path.join(scratch, 'archive-'));
    return { status: response.statusCode, headers: response.headers, body, dir };
  };
  /** Every file under a directory, relative, with its content. */
  const filesUnder = async (dir: string): Promise<Record<string, string>> => {
    const out: Record<string, string> = {};
    for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const full = path.join(entry.parentPath, entry.name);
      out[path.relative(dir, full)] = (await readFile(full)).toString('latin1');
    }
    return out;
  };
  /** The tree of a ref as files and contents, read from the pushed repository. */
  const treeOf = async (ref: string, only?: string): Promise<Record<string, string>> => {
    const names = (await git(['ls-tree', '-r', '--name-only', ref, ...(only ? ['--', only] : [])])).stdout.split('\n').filter(Boolean);
    const out: Record<string, string> = {};
    for (const name of names) out[name] = (await exec('git', ['-C', work, 'cat-file', 'blob', `${ref}:${name}`], { encoding: 'latin1' })).stdout;
    return out;
  };

  it('streams a tar.gz and a zip archive that unpack to the tree of the ref, named as GitLab names them', async () => {
    const tgz = await download('/archive');
    expect(tgz.status).toBe(200);
    const prefix = `${project.path}-main-${sha.third}`;
    expect(tgz.headers['content-disposition']).toBe(`attachment; filename="${prefix}.tar.gz"`);
    expect(tgz.headers['content-type']).toBe('application/octet-stream');
    expect(tgz.headers['content-length']).toBeUndefined();
    await writeFile(path.join(tgz.dir, 'a.tar.gz'), tgz.body);
    await exec('tar', ['-xzf', 'a.tar.gz'], { cwd: tgz.dir });
    expect(await filesUnder(path.join(tgz.dir, prefix))).toEqual(await treeOf('main'));

    const zip = await download('/archive.zip?sha=feature');
    expect(zip.status).toBe(200);
    const zipPrefix = `${project.path}-feature-${sha.feature}`;
    expect(zip.headers['content-disposition']).toBe(`attachment; filename="${zipPrefix}.zip"`);
    expect(zip.headers['content-type']).toBe('application/zip');
    await writeFile(path.join(zip.dir, 'a.zip'), zip.body);
    await exec('unzip', ['-q', 'a.zip'], { cwd: zip.dir });
    const unzipped = await filesUnder(path.join(zip.dir, zipPrefix));
    expect(unzipped).toEqual(await treeOf('feature'));
    expect(unzipped['feature.txt']).toBe('feature\n');
  });

  it('writes tar, tar.bz2 (through bzip2) and a path of the tree; 404 File for an unknown ref or path, unknown formats are unknown routes', async () => {
    const tar = await download(`/archive.tar?sha=${sha.first}`);
    await writeFile(path.join(tar.dir, 'a.tar'), tar.body);
    await exec('tar', ['-xf', 'a.tar'], { cwd: tar.dir });
    expect(await filesUnder(path.join(tar.dir, `${project.path}-${sha.first}-${sha.first}`))).toEqual(await treeOf(sha.first));

    for (const format of ['tar.bz2', 'tbz2', 'bz2']) {
      const bz2 = await download(`/archive.${format}?sha=v1&path=src`);
      expect(bz2.status, format).toBe(200);
      expect(bz2.headers['content-disposition']).toBe(`attachment; filename="${project.path}-v1-${sha.third}-src.tar.bz2"`);
      expect(bz2.body.subarray(0, 3).toString()).toBe('BZh');
      await writeFile(path.join(bz2.dir, 'a.tar.bz2'), bz2.body);
      await exec('tar', ['-xjf', 'a.tar.bz2'], { cwd: bz2.dir });
      expect(await filesUnder(path.join(bz2.dir, `${project.path}-v1-${sha.third}-src`))).toEqual(await treeOf('v1', 'src'));
    }
    const byQuery = await download('/archive?format=zip');
    expect(byQuery.headers['content-type']).toBe('application/zip');

    for (const suffix of ['/archive?sha=nope', '/archive.zip?path=nowhere']) {
      const missing = await site.api(repo(suffix), { as: reporter.token });
      expect(missing.status, suffix).toBe(404);
      expect(missing.body.message).toBe('404 File Not Found');
    }
    const rar = await site.api(repo('/archive.rar'), { as: reporter.token });
    expect(rar.status).toBe(404);
    expect(rar.body).toEqual({ error: '404 Not Found' });
  });

  it('streams the archive while git writes it, and kills git when the client goes away', async () => {
    const big = await createProject(site, { visibility: 'private', default_branch: 'main' }, owner.token);
    const bigWork = path.join(scratch, 'big');
    // Random bytes do not compress: level 0 spares zlib the work on both sides.
    const bigGit = (args: string[]) => gitClient(scratch, 60_000)(['-c', 'core.compression=0', ...args], bigWork);
    await runGit(['init', '--quiet', '-b', 'main', bigWork]);
    await writeFile(path.join(bigWork, 'noise.bin'), randomBytes(24 * 1024 * 1024));
    await bigGit(['add', '.']);
    await bigGit(['commit', '--quiet', '-m', 'noise']);
    // Straight into the bare repository on disk: what is tested is the download, and a 24 MiB push over HTTP is slow on a loaded machine.
    await bigGit(['push', '--quiet', repositoryPath(site.dataDir, big.id), 'main']);
    const archivers = async () => (await exec('ps', ['-eo', 'args'])).stdout.split('\n').filter((line) => line.includes(' archive ') && line.includes(site.dataDir));

    const controller = new AbortController();
    const response = await request(`${site.url}/api/v4/projects/${big.id}/repository/archive.tar`, { headers: { 'private-token': owner.token }, signal: controller.signal });
    expect(response.statusCode).toBe(200);
    const reader = response.body[Symbol.asyncIterator]();
    const first = await reader.next();
    expect(first.done).toBe(false);
    // The first bytes are here while git still writes the 24 MiB: the body is streamed, not held.
    expect(await archivers()).toHaveLength(1);
    controller.abort();
    await response.body.text().catch(() => undefined);
    const deadline = Date.now() + 10_000;
    while ((await archivers()).length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await archivers()).toEqual([]);
    expect((await site.api(`/projects/${big.id}/repository/tree`, { as: owner.token })).status).toBe(200);
  });

  it('answers a git archive that fails before its first byte as an error, and cuts one that fails later', async () => {
    const broken = await createProject(site, { visibility: 'private', default_branch: 'main' }, owner.token);
    const brokenWork = path.join(scratch, 'broken');
    const brokenGit = (args: string[]) => gitClient(scratch)(args, brokenWork);
    await runGit(['init', '--quiet', '-b', 'main', brokenWork]);
    await writeFile(path.join(brokenWork, 'a.txt'), randomBytes(256 * 1024).toString('hex'));
    await writeFile(path.join(brokenWork, 'z.txt'), 'the last file\n');
    await brokenGit(['add', '.']);
    await brokenGit(['commit', '--quiet', '-m', 'two files']);
    const bare = repositoryPath(site.dataDir, broken.id);
    await brokenGit(['push', '--quiet', bare, 'main']);
    // A lost object, as a damaged disk leaves it: the commit is there, what it names is not.
    const loseObject = async (rev: string) => {
      const id = (await brokenGit(['rev-parse', rev])).stdout.trim();
      await rm(path.join(bare, 'objects', id.slice(0, 2), id.slice(2)));
    };
    await loseObject('main:z.txt');
    // a.txt goes out first; the download then breaks off instead of ending as if whole. fetch reports
    // that as the rejection of its promise (undici's request can raise it before the body is read).
    const cut = fetch(`${site.url}/api/v4/projects/${broken.id}/repository/archive.tar`, { headers: { 'private-token': owner.token } }).then((response) => response.arrayBuffer());
    await expect(cut).rejects.toThrow();

    // Without its tree git writes not a byte: the failure is the answer, a 500 in JSON, no attachment.
    await loseObject('main^{tree}');
    const failed = await site.api(`/projects/${broken.id}/repository/archive.zip`, { as: owner.token });
    expect(failed.status).toBe(500);
    expect(failed.headers['content-disposition']).toBeUndefined();
    expect(failed.body).toEqual({ message: '500 Internal Server Error' });
  });

  it('compares with the merge base by default and straight from `from` with straight=true', async () => {
    const threeDot = await site.api(repo('/compare?from=feature&to=main'), { as: reporter.token });
    expect(threeDot.status).toBe(200);
    expect(threeDot.body.commits.map((c: any) => c.title)).toEqual(['second', 'third']);
    expect(threeDot.body.diffs.map((d: any) => d.new_path)).toEqual(['README.md']);
    const straight = await site.api(repo('/compare?from=feature&to=main&straight=true'), { as: reporter.token });
    expect(straight.body.commits.map((c: any) => c.title)).toEqual(['second', 'third']);
    expect(straight.body.diffs.map((d: any) => [d.new_path, d.deleted_file])).toEqual([
      ['README.md', false],
      ['feature.txt', true],
    ]);
    expect((await site.api(repo('/compare?from=feature&to=nope'), { as: reporter.token })).status).toBe(404);
    expect((await site.api(repo('/compare?from=feature'), { as: reporter.token })).body.message).toBe('to is missing');
  });

  it('counts contributors by author email, ordered and paged', async () => {
    const byCommits = await site.api(repo('/contributors'), { as: reporter.token });
    expect(byCommits.status).toBe(200);
    expect(byCommits.body).toEqual([
      { name: 'Bob', email: 'bob@example.com', commits: 1, additions: 0, deletions: 0 },
      { name: 'Alice', email: 'alice@example.com', commits: 2, additions: 0, deletions: 0 },
    ]);
    const byName = await site.api(repo('/contributors?order_by=name&sort=desc&per_page=1'), { as: reporter.token });
    expect(byName.body.map((c: any) => c.name)).toEqual(['Bob']);
    expect(byName.headers['x-total']).toBe('2');
    const feature = await site.api(repo('/contributors?ref=feature&order_by=email'), { as: reporter.token });
    expect(feature.body.map((c: any) => c.email)).toEqual(['alice@example.com', 'carol@example.com']);
    expect((await site.api(repo('/contributors?order_by=size'), { as: reporter.token })).body.message).toBe('order_by does not have a valid value');
    expect((await site.api(repo('/contributors?ref=nope'), { as: reporter.token })).status).toBe(404);
  });

  it('finds the merge base of refs, with GitLab 400s and 404 Merge Base for unrelated histories', async () => {
    const base = await site.api(repo('/merge_base?refs[]=main&refs[]=feature'), { as: reporter.token });
    expect(base.status).toBe(200);
    expect(base.body).toMatchObject({ id: sha.first, title: 'first' });
    // More refs: git's merge-base of the first and a merge of the others, as Gitaly runs it.
    expect((await site.api(repo(`/merge_base?refs[]=v1&refs[]=feature&refs[]=${sha.second}`), { as: reporter.token })).body.id).toBe(sha.second);
    expect((await site.api(repo(`/merge_base?refs=feature,${sha.third}`), { as: reporter.token })).body.id).toBe(sha.first);
    const cases: [string, number, string][] = [
      ['/merge_base', 400, 'refs is missing'],
      ['/merge_base?refs[]=main', 400, 'Provide at least 2 refs'],
      ['/merge_base?refs[]=main&refs[]=nope', 400, 'Could not find ref: nope'],
      ['/merge_base?refs[]=nope&refs[]=main&refs[]=gone', 400, 'Could not find refs: nope, gone'],
      ['/merge_base?refs[]=main&refs[]=orphan', 404, '404 Merge Base Not Found'],
    ];
    for (const [suffix, status, message] of cases) {
      const response = await site.api(repo(suffix), { as: reporter.token });
      expect(response.status, suffix).toBe(status);
      expect(response.body).toEqual({ message });
    }
  });

  it('answers HEAD on a file with the X-Gitlab-* headers python-gitlab reads, and sends them on GET and raw too', async () => {
    const head = await request(`${site.url}/api/v4${repo('/files/src%2Fa.txt?ref=main')}`, { method: 'HEAD', headers: { 'private-token': reporter.token } });
    expect(head.statusCode).toBe(200);
    expect(await head.body.text()).toBe('');
    const blobId = (await git(['rev-parse', 'main:src/a.txt'])).stdout.trim();
    expect(head.headers).toMatchObject({
      'x-gitlab-file-name': 'a.txt',
      'x-gitlab-file-path': 'src/a.txt',
      'x-gitlab-size': '2',
      'x-gitlab-encoding': 'base64',
      'x-gitlab-content-sha256': '87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7',
      'x-gitlab-ref': 'main',
      'x-gitlab-blob-id': blobId,
      'x-gitlab-commit-id': sha.third,
      'x-gitlab-last-commit-id': sha.first,
    });
    const get = await site.api(repo('/files/src%2Fa.txt?ref=main'), { as: reporter.token });
    expect(get.headers['x-gitlab-last-commit-id']).toBe(sha.first);
    expect(get.body.last_commit_id).toBe(sha.first);
    const raw = await site.api(repo('/files/README.md/raw?ref=v1'), { as: reporter.token });
    expect(raw.headers).toMatchObject({ 'x-gitlab-ref': 'v1', 'x-gitlab-file-name': 'README.md', 'x-gitlab-last-commit-id': sha.third });
    const missing = await request(`${site.url}/api/v4${repo('/files/nope.txt?ref=main')}`, { method: 'HEAD', headers: { 'private-token': reporter.token } });
    expect(missing.statusCode).toBe(404);
    await missing.body.text();
    const noRef = await site.api(repo('/files/README.md'), { as: reporter.token, method: 'HEAD' });
    expect(noRef.status).toBe(400);
  });

  it('blames a file: runs of lines with the commit that last changed them', async () => {
    const blame = await site.api(repo('/files/README.md/blame?ref=main'), { as: reporter.token });
    expect(blame.status).toBe(200);
    expect(blame.headers['x-gitlab-file-path']).toBe('README.md');
    expect(blame.body.map((range: any) => [range.commit.id, range.lines])).toEqual([
      [sha.first, ['# hello']],
      [sha.second, ['second line']],
      [sha.third, ['third line']],
    ]);
    expect(blame.body[1].commit).toMatchObject({ author_name: 'Bob', title: 'second' });
    expect((await site.api(repo('/files/README.md/blame?ref=feature'), { as: reporter.token })).body).toHaveLength(1);
    expect((await site.api(repo('/files/nope.md/blame?ref=main'), { as: reporter.token })).body.message).toBe('404 File Not Found');
    expect((await site.api(repo('/files/README.md/blame?ref=nope'), { as: reporter.token })).body.message).toBe('404 Commit Not Found');
    expect((await site.api(repo('/files/README.md/blame'), { as: reporter.token })).body.message).toBe('ref is missing');
    expect((await site.api(repo('/files/README.md/blame?ref=main'), { as: guest.token })).status).toBe(403);
  });

  it('lists the commits of every ref with all=true', async () => {
    const all = await site.api(repo('/commits?all=true&per_page=100'), { as: reporter.token });
    expect(all.status).toBe(200);
    expect(new Set(all.body.map((c: any) => c.id))).toEqual(new Set([sha.first, sha.second, sha.third, sha.feature, sha.orphan]));
    expect(all.headers['x-total']).toBe('5');
    const main = await site.api(repo('/commits?all=false'), { as: reporter.token });
    expect(main.body.map((c: any) => c.id)).toEqual([sha.third, sha.second, sha.first]);
  });

  it('lists the branches and tags that hold a commit, by type', async () => {
    const refs = await site.api(repo(`/commits/${sha.first}/refs`), { as: reporter.token });
    expect(refs.status).toBe(200);
    expect(refs.body).toEqual([
      { type: 'branch', name: 'feature' },
      { type: 'branch', name: 'main' },
      { type: 'tag', name: 'v0' },
      { type: 'tag', name: 'v1' },
    ]);
    expect((await site.api(repo(`/commits/${sha.third}/refs?type=branch`), { as: reporter.token })).body).toEqual([{ type: 'branch', name: 'main' }]);
    expect((await site.api(repo('/commits/v1/refs?type=tag'), { as: reporter.token })).body).toEqual([{ type: 'tag', name: 'v1' }]);
    const paged = await site.api(repo(`/commits/${sha.first}/refs?per_page=3&page=2`), { as: reporter.token });
    expect(paged.body).toEqual([{ type: 'tag', name: 'v1' }]);
    expect(paged.headers['x-total']).toBe('4');
    expect((await site.api(repo(`/commits/${sha.first}/refs?type=note`), { as: reporter.token })).body.message).toBe('type does not have a valid value');
    expect((await site.api(repo('/commits/nope/refs'), { as: reporter.token })).body.message).toBe('404 Commit Not Found');
  });

  it('answers the same on a public project to anonymous callers', async () => {
    const open = await createProject(site, { visibility: 'public', default_branch: 'main' }, owner.token);
    await git(['push', '--quiet', remoteUrl(site.url, open, owner), 'main']);
    const tree = await site.api(`/projects/${open.id}/repository/tree`, { as: null });
    expect(tree.status).toBe(200);
    expect(tree.body.map((e: any) => e.name)).toContain('README.md');
    expect((await site.api(`/projects/${open.id}/repository/contributors`, { as: null })).body).toHaveLength(2);
    // A name beyond latin1 goes out as its UTF-8 bytes, as Rack sends it; clients read the header as latin1.
    const created = await site.api(`/projects/${open.id}/repository/files/d%C3%A9j%C3%A0%20%E2%9C%93.md`, { method: 'POST', as: owner.token, body: { branch: 'main', content: 'x', commit_message: 'unicode' } });
    expect(created.status).toBe(201);
    const head = await request(`${site.url}/api/v4/projects/${open.id}/repository/files/d%C3%A9j%C3%A0%20%E2%9C%93.md?ref=main`, { method: 'HEAD' });
    expect(head.statusCode).toBe(200);
    await head.body.text();
    expect(Buffer.from(String(head.headers['x-gitlab-file-name']), 'latin1').toString('utf8')).toBe('déjà ✓.md');
    const empty = await createProject(site, { visibility: 'public' }, owner.token);
    expect((await site.api(`/projects/${empty.id}/repository/tree`, { as: null })).status).toBe(404);
    expect((await site.api(`/projects/${empty.id}/repository/contributors`, { as: null })).body).toEqual([]);
    expect((await site.api(`/projects/${empty.id}/repository/commits?all=true`, { as: null })).body).toEqual([]);
    expect((await site.api(`/projects/${empty.id}/repository/archive`, { as: ROOT_TOKEN })).status).toBe(404);
  });
});
