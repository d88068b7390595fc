import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCommits } from '../../src/git/commit-log.js';
import { checkGitVersion, isSupportedGitVersion, parseGitVersion, requireGitVersion } from '../../src/git/git-version.js';
import { git } from '../../src/git/in-repository.js';
import { buildMerge, mergeTree, updateRefIfAt } from '../../src/git/merges.js';
import { BLANK_SHA } from '../../src/git/object-names.js';
import { withRefLock } from '../../src/git/ref-lock.js';
import { cherryPickCommit, rebaseCommits, revertCommit } from '../../src/git/replay.js';
import { gitClient } from '../helpers/git.js';

/**
 * The merge engine on real repositories (issue 15, Design: merges without a work tree): a work
 * clone makes the histories, the bare repository is what the engine works on, and every result is
 * checked with git itself.
 */
let root: string;
let bare: string;
let work: string;
let run: ReturnType<typeof gitClient>;
const me = { name: 'Merger', email: 'merger@example.com' };

async function commitFile(branch: string, file: string, content: string, message: string): Promise<string> {
  await run(['checkout', '-q', branch], work);
  await writeFile(path.join(work, file), content);
  await run(['add', file], work);
  await run(['commit', '-q', '-m', message], work);
  await run(['push', '-q', 'origin', branch], work);
  return (await run(['rev-parse', 'HEAD'], work)).stdout.trim();
}

async function branchFrom(branch: string, from: string): Promise<void> {
  await run(['checkout', '-q', '-b', branch, from], work);
  await run(['push', '-q', 'origin', branch], work);
}

const show = async (rev: string, file: string) => (await git(bare, ['show', `${rev}:${file}`])).stdout;
const head = async (branch: string) => (await git(bare, ['rev-parse', `refs/heads/${branch}`])).stdout.trim();

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'geoforge-merges-'));
  run = gitClient(root);
  bare = path.join(root, 'repo.git');
  work = path.join(root, 'work');
  await run(['init', '-q', '--bare', '-b', 'main', bare]);
  await run(['clone', '-q', bare, work]);
  await run(['checkout', '-q', '-b', 'main'], work);
  await writeFile(path.join(work, 'shared.txt'), 'one\ntwo\nthree\n');
  await run(['add', '.'], work);
  await run(['commit', '-q', '-m', 'base'], work);
  await run(['push', '-q', 'origin', 'main'], work);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('git version', () => {
  it('reads versions and holds the 2.38 floor', async () => {
    expect(parseGitVersion('git version 2.39.5')).toEqual([2, 39, 5]);
    expect(parseGitVersion('git version 2.40.0.windows.1')).toEqual([2, 40, 0]);
    expect(parseGitVersion('not git')).toBeNull();
    expect(isSupportedGitVersion([2, 37, 9])).toBe(false);
    expect(isSupportedGitVersion([2, 38, 0])).toBe(true);
    expect(isSupportedGitVersion([3, 0, 0])).toBe(true);
    expect(await requireGitVersion()).toMatch(/^2\.\d+\.\d+$/);
  });

  it('refuses an older git with a message that says what is needed', async () => {
    const bin = path.join(root, 'old-git');
    await mkdir(bin);
    await writeFile(path.join(bin, 'git'), '#!/bin/sh\necho "git version 2.37.1"\n', { mode: 0o755 });
    const saved = process.env.PATH;
    process.env.PATH = `${bin}:${saved}`;
    try {
      await expect(checkGitVersion()).rejects.toThrow('git version 2.37.1 is too old: geoforge needs git >= 2.38 (merge requests merge with "git merge-tree --write-tree")');
    } finally {
      process.env.PATH = saved;
    }
  });
});

describe('merges without a work tree', () => {
  it('merges a clean pair into a two-parent commit and leaves the refs alone', async () => {
    await branchFrom('feature', 'main');
    const source = await commitFile('feature', 'feature.txt', 'new\n', 'add feature');
    const target = await commitFile('main', 'other.txt', 'other\n', 'other on main');
    const built = await buildMerge(bare, target, source, { squash: false, message: "Merge branch 'feature' into 'main'", author: me, committer: me });
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    expect(await head('main')).toBe(target);
    const [commit] = await readCommits(bare, [built.sha]);
    expect(commit!.parentIds).toEqual([target, source]);
    expect(commit!.message).toBe("Merge branch 'feature' into 'main'");
    expect(commit!.committerName).toBe('Merger');
    expect(await show(built.sha, 'feature.txt')).toBe('new\n');
    expect(await show(built.sha, 'other.txt')).toBe('other\n');
  });

  it('squashes into one commit on the target head with the merged tree', async () => {
    await branchFrom('squashed', 'main');
    await commitFile('squashed', 'a.txt', 'a\n', 'a');
    const source = await commitFile('squashed', 'b.txt', 'b\n', 'b');
    const target = await head('main');
    const built = await buildMerge(bare, target, source, { squash: true, message: 'Squashed', author: me, committer: me });
    expect(built.ok).toBe(true);
    if (!built.ok) return;
    const [commit] = await readCommits(bare, [built.sha]);
    expect(commit!.parentIds).toEqual([target]);
    expect(await show(built.sha, 'a.txt')).toBe('a\n');
    expect(await show(built.sha, 'b.txt')).toBe('b\n');
  });

  it('reports a conflicting pair with its paths, and unrelated histories', async () => {
    await branchFrom('left', 'main');
    await branchFrom('right', 'main');
    const left = await commitFile('left', 'shared.txt', 'one\nLEFT\nthree\n', 'left');
    const right = await commitFile('right', 'shared.txt', 'one\nRIGHT\nthree\n', 'right');
    expect(await mergeTree(bare, left, right)).toEqual({ clean: false, conflicts: ['shared.txt'], unrelated: false });
    const built = await buildMerge(bare, left, right, { squash: false, message: 'm', author: me, committer: me });
    expect(built).toEqual({ ok: false, conflicts: ['shared.txt'], unrelated: false });

    await run(['checkout', '-q', '--orphan', 'orphan'], work);
    await run(['rm', '-q', '-rf', '.'], work);
    await writeFile(path.join(work, 'alone.txt'), 'alone\n');
    await run(['add', 'alone.txt'], work);
    await run(['commit', '-q', '-m', 'orphan'], work);
    const orphan = (await run(['rev-parse', 'HEAD'], work)).stdout.trim();
    await run(['push', '-q', 'origin', 'orphan'], work);
    expect(await mergeTree(bare, await head('main'), orphan)).toEqual({ clean: false, conflicts: [], unrelated: true });
  });

  it('moves a ref only from the value it was computed on', async () => {
    const main = await head('main');
    const side = await head('feature');
    expect(await updateRefIfAt(bare, 'refs/heads/cas', main, BLANK_SHA, 'test')).toBe(true);
    expect(await updateRefIfAt(bare, 'refs/heads/cas', side, side, 'test')).toBe(false);
    expect(await head('cas')).toBe(main);
    expect(await updateRefIfAt(bare, 'refs/heads/cas', side, main, 'test')).toBe(true);
    expect(await updateRefIfAt(bare, 'refs/heads/cas', BLANK_SHA, main, 'test')).toBe(false);
    expect(await updateRefIfAt(bare, 'refs/heads/cas', BLANK_SHA, side, 'test')).toBe(true);
    await expect(git(bare, ['rev-parse', '--verify', '--quiet', 'refs/heads/cas'])).rejects.toThrow();
  });

  it('serialises holders of one ref and keeps going after a failure', async () => {
    const order: string[] = [];
    const slow = (name: string, ms: number, fail = false) =>
      withRefLock(bare, 'refs/heads/main', async () => {
        order.push(`start ${name}`);
        await new Promise((resolve) => setTimeout(resolve, ms));
        order.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([slow('a', 30, true), slow('b', 1), slow('c', 1)]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(order).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c']);
  });
});

describe('cherry-pick, revert and rebase without a work tree', () => {
  it('cherry-picks the change of one commit, not its history', async () => {
    await branchFrom('picks', 'main');
    await commitFile('picks', 'first.txt', 'first\n', 'first on picks');
    const second = await commitFile('picks', 'second.txt', 'second\n', 'second on picks');
    const onto = await head('main');
    const [commit] = await readCommits(bare, [second]);
    const picked = await cherryPickCommit(bare, commit!, onto, me);
    expect(picked.ok).toBe(true);
    if (!picked.ok) return;
    const [result] = await readCommits(bare, [picked.sha]);
    expect(result!.parentIds).toEqual([onto]);
    expect(result!.authorName).toBe('Test');
    expect(result!.authoredDate).toBe(commit!.authoredDate);
    expect(result!.committerName).toBe('Merger');
    // GitLab's form appended to the message as stored (`git commit -m` ended it with a newline).
    expect(result!.message).toBe(`second on picks\n\n\n(cherry-picked from commit ${second})`);
    expect(await show(picked.sha, 'second.txt')).toBe('second\n');
    await expect(show(picked.sha, 'first.txt')).rejects.toThrow();
    // Picking it again changes nothing: GitLab refuses an empty pick.
    expect(await cherryPickCommit(bare, commit!, picked.sha, me)).toEqual({ ok: false, reason: 'empty' });
  });

  it('refuses a conflicting cherry-pick', async () => {
    const [left] = await readCommits(bare, [await head('left')]);
    expect(await cherryPickCommit(bare, left!, await head('right'), me)).toEqual({ ok: false, reason: 'conflict' });
  });

  it('reverts a commit, also one deep in history, with GitLab message', async () => {
    await branchFrom('reverts', 'main');
    const added = await commitFile('reverts', 'undo.txt', 'undo me\n', 'add undo');
    const later = await commitFile('reverts', 'keep.txt', 'keep\n', 'keep this');
    const [commit] = await readCommits(bare, [added]);
    const reverted = await revertCommit(bare, commit!, later, me);
    expect(reverted.ok).toBe(true);
    if (!reverted.ok) return;
    const [result] = await readCommits(bare, [reverted.sha]);
    expect(result!.message).toBe(`Revert "add undo"\n\nThis reverts commit ${added}`);
    expect(result!.authorName).toBe('Merger');
    await expect(show(reverted.sha, 'undo.txt')).rejects.toThrow();
    expect(await show(reverted.sha, 'keep.txt')).toBe('keep\n');
    expect(await revertCommit(bare, commit!, reverted.sha, me)).toEqual({ ok: false, reason: 'empty' });
  });

  it('rebases a branch onto its moved target, linear, keeping authors and messages', async () => {
    const base = await head('main');
    await branchFrom('topic', 'main');
    const t1 = await commitFile('topic', 'topic1.txt', '1\n', 'topic one');
    const t2 = await commitFile('topic', 'topic2.txt', '2\n', 'topic two');
    const moved = await commitFile('main', 'main-moved.txt', 'moved\n', 'main moved');
    expect(base).not.toBe(moved);
    const rebased = await rebaseCommits(bare, t2, moved, me);
    expect(rebased.ok).toBe(true);
    if (!rebased.ok) return;
    expect(rebased.replayed).toBe(2);
    const log = (await git(bare, ['log', '--format=%s|%an|%cn', `${moved}..${rebased.head}`])).stdout.trim().split('\n');
    expect(log).toEqual(['topic two|Test|Merger', 'topic one|Test|Merger']);
    expect((await git(bare, ['rev-parse', `${rebased.head}~2`])).stdout.trim()).toBe(moved);
    expect(await show(rebased.head, 'main-moved.txt')).toBe('moved\n');
    expect(await show(rebased.head, 'topic1.txt')).toBe('1\n');
    expect(t1).not.toBe(rebased.head);
    // Up to date already: nothing to replay, the head stays.
    expect(await rebaseCommits(bare, rebased.head, moved, me)).toEqual({ ok: true, head: rebased.head, replayed: 0 });
  });

  it('stops a rebase at the commit that conflicts', async () => {
    const right = await head('right');
    expect(await rebaseCommits(bare, await head('left'), right, me)).toEqual({ ok: false, conflictAt: await head('left') });
  });
});
