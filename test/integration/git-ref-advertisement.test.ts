import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGit, streamGit } from '../../src/git/cli.js';
import { advertiseRefs, FLUSH_PKT, pktLine } from '../../src/git/smart-http.js';
import { repositoryPath } from '../../src/storage/layout.js';
import { createProject, createUser, type TestUser } from '../helpers/factories.js';
import { gitClient, remoteUrl } from '../helpers/git.js';
import { startSite, type TestSite } from '../helpers/site.js';

/**
 * Issue 17, item 7: upload-pack ref advertisements come from memory while the refs are as git
 * last advertised them. What a client sees must never differ from git's own answer: a push, a new
 * annotated tag, a deleted branch or a new HEAD shows at once, in protocol v0, v1 and v2.
 */
describe('upload-pack ref advertisements kept in memory', () => {
  let site: TestSite;
  let scratch: string;
  let owner: TestUser;
  let project: any;
  let repository: string;
  let work: string;

  const git = (args: string[], cwd?: string) => gitClient(scratch, 20_000)(args, cwd);
  const lsRemote = async (version: number) =>
    (await git(['-c', `protocol.version=${version}`, 'ls-remote', remoteUrl(site.url, project, owner)], work)).stdout.trim().split('\n').sort();
  /** What git itself advertises for the repository (the body of GET info/refs), and what advertiseRefs writes. */
  const ownAnswer = async (gitProtocol: string | null) => {
    const child = streamGit(['upload-pack', '--stateless-rpc', '--advertise-refs', repository], { env: gitProtocol ? { GIT_PROTOCOL: gitProtocol } : {} });
    child.stdin.end();
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    await child.done;
    const prefix = gitProtocol === 'version=2' ? Buffer.alloc(0) : Buffer.concat([pktLine('# service=git-upload-pack\n'), FLUSH_PKT]);
    return Buffer.concat([prefix, ...chunks]);
  };
  const answer = async (gitProtocol: string | null) => {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (chunk: Buffer) => chunks.push(chunk));
    await advertiseRefs(repository, 'git-upload-pack', out, gitProtocol);
    return Buffer.concat(chunks);
  };

  beforeAll(async () => {
    site = await startSite();
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-ref-adv-'));
    owner = await createUser(site);
    project = await createProject(site, { visibility: 'private', initialize_with_readme: true }, owner.token);
    repository = repositoryPath(site.dataDir, project.id);
    work = path.join(scratch, 'work');
    await git(['clone', '--quiet', remoteUrl(site.url, project, owner), work]);
  });

  afterAll(async () => {
    await site?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it("answers byte for byte what git answers, for v0, v1 and v2, first from git and then from memory", async () => {
    for (const protocol of [null, 'version=1', 'version=2']) {
      const expected = await ownAnswer(protocol);
      expect(await answer(protocol)).toEqual(expected);
      expect(await answer(protocol)).toEqual(expected);
    }
  });

  it('answers from memory without git while the refs are unchanged: with the objects moved away, the kept answer still comes', async () => {
    const expected = await answer(null);
    const objects = path.join(repository, 'objects');
    await rename(objects, `${objects}.away`);
    try {
      expect(await answer(null)).toEqual(expected);
    } finally {
      await rename(`${objects}.away`, objects);
    }
  });

  it('shows every ref change at once: pushed branches, annotated tags (peeled), deletions, a new HEAD', async () => {
    const before = await lsRemote(0);
    await writeFile(path.join(work, 'a.txt'), 'a\n');
    await git(['add', '.'], work);
    await git(['commit', '--quiet', '-m', 'a'], work);
    await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/feature'], work);
    await git(['tag', '-a', 'v1.0', '-m', 'release'], work);
    await git(['push', '--quiet', 'origin', 'v1.0'], work);
    const sha = (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
    for (const version of [0, 2]) {
      const refs = await lsRemote(version);
      expect(refs).toContain(`${sha}\trefs/heads/feature`);
      expect(refs).toContain(`${sha}\trefs/tags/v1.0^{}`);
      expect(refs.length).toBe(before.length + 3);
    }

    // packed refs, then a deletion of the packed branch: both answered as git does.
    await runGit(['--git-dir', repository, 'pack-refs', '--all']);
    expect(await answer(null)).toEqual(await ownAnswer(null));
    await git(['push', '--quiet', 'origin', ':refs/heads/feature'], work);
    expect((await lsRemote(0)).some((line) => line.endsWith('refs/heads/feature'))).toBe(false);

    await git(['push', '--quiet', 'origin', 'HEAD:refs/heads/trunk'], work);
    expect((await site.api(`/projects/${project.id}`, { method: 'PUT', as: owner.token, body: { default_branch: 'trunk' } })).status).toBe(200);
    expect(await answer(null)).toEqual(await ownAnswer(null));
    expect((await answer(null)).toString('latin1')).toContain('symref=HEAD:refs/heads/trunk');
  });
});
