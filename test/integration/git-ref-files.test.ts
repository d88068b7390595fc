import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { branchHeads } from '../../src/git/merges.js';
import { allBranchHeadsFromFiles, branchHeadsFromFiles } from '../../src/git/ref-files.js';
import { isEmptyRepository, isValidBranchName, listBranchHeads } from '../../src/git/refs.js';
import { gitClient } from '../helpers/git.js';

/**
 * Branch heads read from the ref files (merge requests' create, check and accept) answer exactly
 * what `git for-each-ref` answers, or null so that git is asked: loose and packed refs, a loose ref
 * over a packed one, deletions, names below a file, symbolic refs, odd names, a missing repository;
 * and the whole branch listing as `for-each-ref refs/heads/` gives it.
 */
let root: string;
let bare: string;
let run: ReturnType<typeof gitClient>;
let first: string;
let second: string;

const forEachRef = async (names: string[]) => {
  const { stdout } = await run(['--git-dir', bare, 'for-each-ref', '--format=%(objectname) %(refname)', ...names.map((name) => `refs/heads/${name}`)]);
  const heads = new Map<string, string>();
  for (const line of stdout.split('\n').filter(Boolean)) {
    const [sha, ref] = line.split(' ');
    if (names.includes(ref!.slice('refs/heads/'.length))) heads.set(ref!.slice('refs/heads/'.length), sha!);
  }
  return heads;
};

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'geoforge-ref-files-'));
  run = gitClient(root);
  bare = path.join(root, 'repo.git');
  const work = path.join(root, 'work');
  await run(['init', '-q', '--bare', '-b', 'main', bare]);
  await run(['init', '-q', '-b', 'main', work]);
  await writeFile(path.join(work, 'a.txt'), 'a\n');
  await run(['add', '.'], work);
  await run(['commit', '-q', '-m', 'one'], work);
  await writeFile(path.join(work, 'a.txt'), 'b\n');
  await run(['commit', '-qam', 'two'], work);
  first = (await run(['rev-parse', 'HEAD~1'], work)).stdout.trim();
  second = (await run(['rev-parse', 'HEAD'], work)).stdout.trim();
  await run(['push', '-q', bare, 'HEAD:refs/heads/main', 'HEAD~1:refs/heads/packed', 'HEAD~1:refs/heads/feature/deep', 'HEAD:refs/heads/gone'], work);
  // Pack every ref, then move one of them again (a loose ref over its packed value) and delete another.
  await run(['--git-dir', bare, 'pack-refs', '--all']);
  await run(['--git-dir', bare, 'update-ref', 'refs/heads/packed', second]);
  await run(['--git-dir', bare, 'update-ref', '-d', 'refs/heads/gone']);
  await run(['--git-dir', bare, 'update-ref', 'refs/heads/loose', first]);
  await run(['--git-dir', bare, 'symbolic-ref', 'refs/heads/alias', 'refs/heads/main']);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('branchHeadsFromFiles', () => {
  it('reads loose, packed and overridden refs as for-each-ref does, absent ones absent', async () => {
    const names = ['main', 'packed', 'feature/deep', 'gone', 'loose', 'nope', 'feature', 'main/below', 'feature/deep/below'];
    const read = await branchHeadsFromFiles(bare, names);
    expect(read).not.toBeNull();
    expect(read).toEqual(await forEachRef(names));
    expect(read!.get('packed')).toBe(second);
    expect(read!.get('feature/deep')).toBe(first);
    expect(read!.has('gone')).toBe(false);
  });

  it('leaves symbolic refs, odd names, reftables and missing repositories to git', async () => {
    expect(await branchHeadsFromFiles(bare, ['main', 'alias'])).toBeNull();
    for (const odd of ['.hidden', 'a..b', 'x.lock', 'sp ace', '', 'a//b', '/abs']) expect(await branchHeadsFromFiles(bare, [odd])).toBeNull();
    expect(await branchHeadsFromFiles(path.join(root, 'missing.git'), ['main'])).toBeNull();
    const reftable = path.join(root, 'reftable.git');
    await run(['init', '-q', '--bare', reftable]);
    await mkdir(path.join(reftable, 'reftable'));
    expect(await branchHeadsFromFiles(reftable, ['main'])).toBeNull();
    await writeFile(path.join(bare, 'refs', 'heads', 'broken'), 'not a sha\n');
    expect(await branchHeadsFromFiles(bare, ['broken'])).toBeNull();
    await rm(path.join(bare, 'refs', 'heads', 'broken'));
  });

  it('branchHeads answers the same through git when the files cannot', async () => {
    expect(await branchHeads(bare, ['main', 'alias', 'packed'])).toEqual(new Map([['main', second], ['alias', second], ['packed', second]]));
    expect(await branchHeads(bare, ['main', 'packed', 'loose'])).toEqual(await forEachRef(['main', 'packed', 'loose']));
  });

  it('lists every branch as for-each-ref does, or leaves the listing to git', async () => {
    const { stdout } = await run(['--git-dir', bare, 'for-each-ref', '--format=%(objectname) %(refname:strip=2)', 'refs/heads/']);
    const listed = stdout.split('\n').filter(Boolean).map((line) => ({ sha: line.split(' ')[0]!, name: line.split(' ')[1]! }));
    // The symbolic `alias` is git's to answer; without it the files give the same listing.
    expect(await allBranchHeadsFromFiles(bare)).toBeNull();
    expect((await listBranchHeads(bare)).map(({ name, sha }) => ({ name, sha }))).toEqual(listed);
    await run(['--git-dir', bare, 'symbolic-ref', '--delete', 'refs/heads/alias']);
    try {
      const byName = (heads: { name: string; sha: string }[]) => [...heads].sort((a, b) => (a.name < b.name ? -1 : 1));
      expect(byName((await allBranchHeadsFromFiles(bare))!)).toEqual(byName(listed.filter((head) => head.name !== 'alias')));
      // A ref being written (its lock file) or a name git might read another way: git answers.
      await writeFile(path.join(bare, 'refs', 'heads', 'main.lock'), `${first}\n`);
      expect(await allBranchHeadsFromFiles(bare)).toBeNull();
      await rm(path.join(bare, 'refs', 'heads', 'main.lock'));
      // An empty directory left by a deleted `a/b` is no branch.
      await mkdir(path.join(bare, 'refs', 'heads', 'empty', 'dir'), { recursive: true });
      expect((await allBranchHeadsFromFiles(bare))!.some((head) => head.name.startsWith('empty'))).toBe(false);
    } finally {
      await run(['--git-dir', bare, 'symbolic-ref', 'refs/heads/alias', 'refs/heads/main']);
    }
  });
});
describe('branch names and emptiness without git', () => {
  it('judges branch names as `git check-ref-format` does', async () => {
    const names = [
      'main', 'feature/deep', 'release-1.2', 'a./b', 'a.b', 'user@host', '@', 'x+y=z,w', 'café', 'trailing.', 'double..dot', '.hidden', 'dir/.hidden',
      'name.lock', 'dir/name.lock/x', 'a//b', '/lead', 'tail/', 'sp ace', 'ti~lde', 'ca^ret', 'co:lon', 'que?', 'st*r', 'br[acket', 'back\\slash',
      'at@{brace', '-dash', 'HEAD', 'a.lock.b', 'ctl\x01',
    ];
    for (const name of names) {
      const byGit = await run(['check-ref-format', `refs/heads/${name}`]).then(() => true, () => false);
      const safe = !name.startsWith('-') && name !== 'HEAD' && !/[\x00-\x1f\x7f\s]/.test(name);
      expect(await isValidBranchName(name), name).toBe(byGit && safe);
    }
  });

  it('tells an empty repository from one with a loose or only packed branch', async () => {
    const empty = path.join(root, 'empty.git');
    await run(['init', '-q', '--bare', empty]);
    expect(await isEmptyRepository(empty)).toBe(true);
    expect(await isEmptyRepository(bare)).toBe(false);
    const packedOnly = path.join(root, 'packed-only.git');
    await run(['clone', '-q', '--bare', bare, packedOnly]);
    await run(['--git-dir', packedOnly, 'pack-refs', '--all']);
    expect(await allBranchHeadsFromFiles(packedOnly, 1)).toHaveLength(1);
    expect(await isEmptyRepository(packedOnly)).toBe(false);
  });
});
