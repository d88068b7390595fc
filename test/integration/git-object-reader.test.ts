import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeObjectReaders, objectInfo, readObject } from '../../src/git/object-reader.js';
import { resolveCommit } from '../../src/git/refs.js';
import { entryAt, findBlob, listTree, readBlob } from '../../src/git/tree.js';
import { gitClient } from '../helpers/git.js';

/**
 * The reads served by the long-running `cat-file --batch-command` (object-reader.ts) and the ref
 * files answer exactly what the git commands they replace answer: rev-parse's dwim rules for
 * revisions, ls-tree for entries and listings (canonical modes, submodules, symlinks, odd names),
 * cat-file for blobs; and a reader that goes away is replaced without a failed read.
 */
let root: string;
let bare: string;
let run: ReturnType<typeof gitClient>;
const sha: Record<string, string> = {};

const revParse = async (revision: string): Promise<string | null> => {
  const result = await run(['--git-dir', bare, 'rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`]).catch(() => null);
  return result?.stdout.trim() || null;
};

interface Listed {
  mode: string;
  type: string;
  id: string;
  path: string;
}
const lsTree = async (args: string[]): Promise<Listed[]> => {
  const { stdout } = await run(['--git-dir', bare, '-c', 'core.quotePath=false', 'ls-tree', '-z', ...args]);
  return stdout
    .split('\0')
    .filter(Boolean)
    .map((record) => {
      const [meta, relative] = record.split('\t') as [string, string];
      const [mode, type, id] = meta.split(' ') as [string, string, string];
      return { mode, type, id, path: relative };
    });
};

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'geoforge-object-reader-'));
  run = gitClient(root);
  bare = path.join(root, 'repo.git');
  const work = path.join(root, 'work');
  await run(['init', '-q', '--bare', '-b', 'master', bare]);
  await run(['init', '-q', '-b', 'master', work]);
  await mkdir(path.join(work, 'dir', 'deep'), { recursive: true });
  await writeFile(path.join(work, 'README.md'), '# readme\n');
  await writeFile(path.join(work, 'dir', 'a.txt'), 'a\n');
  await writeFile(path.join(work, 'dir', 'deep', 'b.txt'), 'b\n');
  await writeFile(path.join(work, 'dir', 'ünïcødé name.txt'), 'u\n');
  await writeFile(path.join(work, 'run.sh'), '#!/bin/sh\n');
  await chmod(path.join(work, 'run.sh'), 0o755);
  await symlink('dir/a.txt', path.join(work, 'link'));
  await writeFile(path.join(work, 'big.bin'), Buffer.alloc(3 * 1024 * 1024, 7));
  await run(['add', '.'], work);
  await run(['update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},sub`], work);
  await run(['commit', '-q', '-m', 'one'], work);
  sha.one = (await run(['rev-parse', 'HEAD'], work)).stdout.trim();
  await writeFile(path.join(work, 'dir', 'a.txt'), 'a2\n');
  await run(['commit', '-qam', 'two'], work);
  sha.two = (await run(['rev-parse', 'HEAD'], work)).stdout.trim();
  await run(['tag', '-a', '-m', 'annotated', 'v1', sha.one], work);
  await run(['tag', 'light', sha.two], work);
  // A tag and a branch of one name: rev-parse takes the tag (refs/tags before refs/heads).
  await run(['tag', 'both', sha.one], work);
  await run(['push', '-q', bare, 'HEAD:refs/heads/master', `${sha.two}:refs/heads/both`, `${sha.one}:refs/heads/feature/x`, 'refs/tags/*:refs/tags/*'], work);
  await run(['--git-dir', bare, 'pack-refs', '--all']);
  await run(['--git-dir', bare, 'update-ref', 'refs/heads/loose', sha.two]);
  await run(['--git-dir', bare, 'update-ref', 'refs/remotes/origin/main', sha.one]);
  sha.blob = (await run(['--git-dir', bare, 'rev-parse', `${sha.two}:dir/a.txt`])).stdout.trim();
});

afterAll(async () => {
  closeObjectReaders(root);
  await rm(root, { recursive: true, force: true });
});

describe('resolveCommit', () => {
  it('answers what rev-parse answers for every kind of revision', async () => {
    const revisions = [
      'master', 'loose', 'both', 'v1', 'light', 'feature/x', 'heads/master', 'refs/heads/master', 'tags/v1', 'refs/tags/both', 'origin/main', 'remotes/origin/main',
      'HEAD', 'master~1', 'v1^{}', sha.one!, sha.two!, sha.two!.slice(0, 10), sha.blob!, 'nope', 'feature', 'feature/x/y', 'refs/heads', 'config', '@', 'objects', '0'.repeat(40),
    ];
    for (const revision of revisions) expect(await resolveCommit(bare, revision), revision).toBe(await revParse(revision));
  });
});

describe('tree reads', () => {
  it('finds entries as ls-tree does, and nothing for paths it would not list', async () => {
    for (const commit of [sha.one!, sha.two!]) {
      const listed = await lsTree(['-r', '-t', commit]);
      for (const entry of listed) {
        expect(await entryAt(bare, commit, entry.path), entry.path).toEqual({ id: entry.id, name: path.posix.basename(entry.path), type: entry.type, path: entry.path, mode: entry.mode });
      }
      for (const missing of ['nope', 'dir/', 'dir//a.txt', './README.md', 'dir/../README.md', 'README.md/x', 'sub/x', 'link/x', '', 'DIR/a.txt']) {
        expect(await entryAt(bare, commit, missing), missing).toBeNull();
      }
    }
  });

  it('lists a tree as ls-tree does: modes, types, submodules, symlinks, unicode names', async () => {
    for (const dir of ['', 'dir', 'dir/deep']) {
      const expected = (await lsTree([dir ? `${sha.two}:${dir}` : sha.two!])).map((entry) => ({
        id: entry.id, name: path.posix.basename(entry.path), type: entry.type, path: dir ? `${dir}/${entry.path}` : entry.path, mode: entry.mode,
      }));
      expect(await listTree(bare, sha.two!, dir, false)).toEqual(expected);
    }
    expect(await listTree(bare, sha.two!, 'README.md', false)).toBeNull();
    expect(await listTree(bare, sha.two!, 'nope', false)).toBeNull();
  });

  it('lists a non-canonical mode as git does (100664 as 100644)', async () => {
    const blob = (await run(['--git-dir', bare, 'rev-parse', `${sha.two}:README.md`])).stdout.trim();
    const raw = Buffer.concat([Buffer.from('100664 odd.txt\0'), Buffer.from(blob, 'hex'), Buffer.from('100775 odd.sh\0'), Buffer.from(blob, 'hex')]);
    const treeFile = path.join(root, 'odd-tree');
    await writeFile(treeFile, raw);
    const tree = (await run(['--git-dir', bare, 'hash-object', '-t', 'tree', '-w', '--literally', treeFile])).stdout.trim();
    const commit = (await run(['--git-dir', bare, 'commit-tree', '-m', 'odd', tree])).stdout.trim();
    const expected = (await lsTree([commit])).map((entry) => ({ id: entry.id, name: entry.path, type: entry.type, path: entry.path, mode: entry.mode }));
    expect(expected.map((entry) => entry.mode)).toEqual(['100644', '100755']);
    expect(await listTree(bare, commit, '', false)).toEqual(expected);
  });

  it('reads blobs byte for byte, large ones too, and finds them by full or abbreviated id', async () => {
    const big = (await run(['--git-dir', bare, 'rev-parse', `${sha.two}:big.bin`])).stdout.trim();
    expect((await readBlob(bare, big)).equals(Buffer.alloc(3 * 1024 * 1024, 7))).toBe(true);
    expect((await readBlob(bare, sha.blob!)).toString()).toBe('a2\n');
    expect(await findBlob(bare, sha.blob!)).toEqual({ id: sha.blob, size: 3 });
    expect(await findBlob(bare, sha.blob!.slice(0, 8))).toEqual({ id: sha.blob, size: 3 });
    expect(await findBlob(bare, sha.two!)).toBeNull();
    await expect(readBlob(bare, sha.two!)).rejects.toThrow(/not a blob/);
  });
});

describe('the object reader', () => {
  it('answers many reads in flight in order, and replaces a reader that went away', async () => {
    const names = Array.from({ length: 200 }, (_, i) => [sha.one!, sha.two!, sha.blob!, '2'.repeat(40)][i % 4]!);
    const answers = await Promise.all(names.map((name, i) => (i % 2 ? readObject(bare, name) : objectInfo(bare, name))));
    answers.forEach((answer, i) => {
      const name = names[i]!;
      if (name === '2'.repeat(40)) expect(answer).toBeNull();
      else expect(answer?.id).toBe(name);
      if (i % 2 && answer) expect(answer.data?.length).toBe(answer.size);
    });
    const inFlight = Promise.all(names.map((name) => objectInfo(bare, name)));
    closeObjectReaders(root);
    expect((await inFlight).map((answer) => answer?.id ?? null)).toEqual(names.map((name) => (name === '2'.repeat(40) ? null : name)));
    expect((await objectInfo(bare, `${sha.two}^{commit}`))?.type).toBe('commit');
    await expect(objectInfo(bare, 'master')).rejects.toThrow(/not a full object name/);
  });
});
