import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refsChecksum } from '../../src/geo/repository-checksum.js';

const git = (args: string[], cwd?: string) => execFileSync('git', args, { cwd, env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } }).toString();

/** The same checksum as git itself lists the refs: what refsChecksum reads from files must agree. */
function checksumByGit(repository: string): string {
  const lines = git(['--git-dir', repository, 'for-each-ref', '--format=%(objectname) %(refname)']).split('\n').filter(Boolean);
  const name = (line: string) => Buffer.from(line.slice(line.indexOf(' ') + 1));
  lines.sort((a, b) => Buffer.compare(name(a), name(b)));
  const hash = createHash('sha256').update(`HEAD ${git(['--git-dir', repository, 'symbolic-ref', 'HEAD']).trim()}\n`);
  for (const line of lines) hash.update(`${line}\n`);
  return hash.digest('hex');
}

describe('refsChecksum', () => {
  let dir: string;
  let mirror: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'refs-checksum-'));
    const work = path.join(dir, 'work');
    git(['init', '--quiet', '--initial-branch=main', work]);
    git(['commit', '--quiet', '--allow-empty', '-m', 'one'], work);
    git(['tag', '-a', 'v1', '-m', 'annotated'], work);
    git(['branch', 'topic'], work);
    git(['commit', '--quiet', '--allow-empty', '-m', 'two'], work);
    git(['tag', 'light'], work);
    mirror = path.join(dir, 'mirror.git');
    // A mirror clone packs its refs (with peeled lines for the annotated tag).
    git(['clone', '--quiet', '--mirror', work, mirror]);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('agrees with git for-each-ref over packed, loose and symbolic refs, and ignores lock files', async () => {
    expect(await refsChecksum(mirror)).toBe(checksumByGit(mirror));
    git(['--git-dir', mirror, 'update-ref', 'refs/heads/loose', 'main~1']);
    git(['--git-dir', mirror, 'update-ref', 'refs/heads/topic', 'main']);
    git(['--git-dir', mirror, 'symbolic-ref', 'refs/heads/alias', 'refs/heads/topic']);
    await writeFile(path.join(mirror, 'refs', 'heads', 'busy.lock'), 'not a ref\n');
    expect(await refsChecksum(mirror)).toBe(checksumByGit(mirror));
    git(['--git-dir', mirror, 'pack-refs', '--all']);
    expect(await refsChecksum(mirror)).toBe(checksumByGit(mirror));
  });

  it('moves with any ref or with HEAD, and is null for a missing repository', async () => {
    const before = await refsChecksum(mirror);
    git(['--git-dir', mirror, 'update-ref', 'refs/heads/loose', 'main']);
    const moved = await refsChecksum(mirror);
    expect(moved).not.toBe(before);
    git(['--git-dir', mirror, 'symbolic-ref', 'HEAD', 'refs/heads/topic']);
    expect(await refsChecksum(mirror)).not.toBe(moved);
    expect(await refsChecksum(mirror)).toBe(checksumByGit(mirror));
    expect(await refsChecksum(path.join(dir, 'absent.git'))).toBeNull();
  });
});
