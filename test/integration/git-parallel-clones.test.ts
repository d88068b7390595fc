import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, createUser, type TestUser } from '../helpers/factories.js';
import { gitClient, remoteUrl } from '../helpers/git.js';
import { startSite, type TestSite } from '../helpers/site.js';

const CLONES = 20;

describe('git smart HTTP under parallel clones', () => {
  let site: TestSite;
  let scratch: string;
  let owner: TestUser;
  let project: any;
  let head: string;

  const git = (args: string[], cwd?: string) => gitClient(scratch, 30_000)(args, cwd);
  const remote = () => remoteUrl(site.url, project, owner);

  beforeAll(async () => {
    site = await startSite();
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-git-parallel-'));
    owner = await createUser(site);
    project = await createProject(site, { visibility: 'private', default_branch: 'master' }, owner.token);
    // A non-empty repository: a few commits, some files in each.
    const work = path.join(scratch, 'seed');
    await git(['init', '--quiet', '-b', 'master', work]);
    for (let commit = 1; commit <= 3; commit++) {
      for (let file = 1; file <= 10; file++) await writeFile(path.join(work, `file-${file}.txt`), `commit ${commit} file ${file}\n`.repeat(50));
      await git(['add', '.'], work);
      await git(['commit', '--quiet', '-m', `commit ${commit}`], work);
    }
    head = (await git(['rev-parse', 'HEAD'], work)).stdout.trim();
    await git(['push', '--quiet', remote(), 'HEAD:refs/heads/master'], work);
  });
  afterAll(async () => {
    await site?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it(`serves ${CLONES} parallel clones of one repository, all with the same HEAD`, async () => {
    const dirs = Array.from({ length: CLONES }, (_, i) => path.join(scratch, `clone-${i}`));
    // Each clone is its own git process, spawned without a shell, all in flight at once.
    const results = await Promise.allSettled(dirs.map((dir) => git(['clone', '--quiet', remote(), dir])));
    const failures = results.flatMap((result, i) => (result.status === 'rejected' ? [`clone ${i}: ${String(result.reason)}`] : []));
    expect(failures).toEqual([]);
    const heads = await Promise.all(dirs.map(async (dir) => (await git(['rev-parse', 'HEAD'], dir)).stdout.trim()));
    expect(new Set(heads)).toEqual(new Set([head]));
    // Every clone has the full history, checked out cleanly.
    const counts = await Promise.all(dirs.map(async (dir) => (await git(['rev-list', '--count', 'HEAD'], dir)).stdout.trim()));
    expect(new Set(counts)).toEqual(new Set(['3']));
    const status = await Promise.all(dirs.map(async (dir) => (await git(['status', '--porcelain'], dir)).stdout));
    expect(status.every((out) => out === '')).toBe(true);
  }, 20_000);
});
