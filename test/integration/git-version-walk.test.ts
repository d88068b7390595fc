import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitsAndMergeBase, commitsExcluding, mergeBase } from '../../src/git/commit-log.js';
import { gitClient } from '../helpers/git.js';

/**
 * A diff version's commits and merge base come from one `git log --boundary` (commitsAndMergeBase)
 * instead of `merge-base` plus `log`: on every shape of history it must give exactly what the two
 * calls give, or say it does not know (and the version asks `git merge-base`).
 */
let root: string;
let work: string;
let run: ReturnType<typeof gitClient>;
let counter = 0;

async function commit(branch: string, message = `c${counter}`): Promise<string> {
  counter += 1;
  if ((await run(['symbolic-ref', '--short', 'HEAD'], work)).stdout.trim() !== branch) await run(['checkout', '-q', branch], work);
  await writeFile(path.join(work, `${branch.replace(/\W/g, '_')}-${counter}.txt`), `${counter}\n`);
  await run(['add', '.'], work);
  // Dates out of order on purpose: the walk's order must not depend on them being monotonic.
  await run(['commit', '-q', '-m', message], work, { GIT_COMMITTER_DATE: `2020-01-${String(30 - (counter % 25)).padStart(2, '0')}T00:00:00Z` });
  return (await run(['rev-parse', 'HEAD'], work)).stdout.trim();
}
const rev = async (name: string) => (await run(['rev-parse', name], work)).stdout.trim();
const repository = () => path.join(work, '.git');

/** The walk against the two calls it replaces, for `head` into `start`. */
async function expectSameAsTwoCalls(head: string, start: string, limit = 10_000): Promise<'walked' | 'asked'> {
  const walked = await commitsAndMergeBase(repository(), head, start, limit);
  expect(walked.commits).toEqual(await commitsExcluding(repository(), head, [start], limit));
  const expected = await mergeBase(repository(), start, head);
  if (walked.base === undefined) return 'asked';
  expect(walked.base).toBe(expected);
  return 'walked';
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'geoforge-walk-'));
  run = gitClient(root);
  work = path.join(root, 'work');
  await run(['init', '-q', '-b', 'main', work]);
  await commit('main', 'root');
  await commit('main');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('commitsAndMergeBase', () => {
  it('a branch off a target that moved on: one boundary commit, the merge base', async () => {
    await run(['checkout', '-q', '-b', 'linear', 'main'], work);
    await commit('linear');
    await commit('linear', 'multi\n\nline message\n');
    await commit('main');
    expect(await expectSameAsTwoCalls(await rev('linear'), await rev('main'))).toBe('walked');
  });

  it('a source that merged its target in, twice: several boundary commits, so git is asked', async () => {
    await run(['checkout', '-q', '-b', 'merger', 'main'], work);
    await commit('merger');
    await commit('main');
    await run(['checkout', '-q', 'merger'], work);
    await run(['merge', '-q', '--no-edit', 'main'], work);
    await commit('merger');
    await commit('main');
    expect(await expectSameAsTwoCalls(await rev('merger'), await rev('main'))).toBe('asked');
    // Merged up to date: the older merge and the branch point stay boundaries, so still asked, and still equal.
    await run(['checkout', '-q', 'merger'], work);
    await run(['merge', '-q', '--no-edit', 'main'], work);
    await commit('merger');
    expect(await expectSameAsTwoCalls(await rev('merger'), await rev('main'))).toBe('asked');
  });

  it('criss-cross merges: answers equal to merge-base, or asks', async () => {
    await run(['checkout', '-q', '-b', 'x', 'main'], work);
    await commit('x');
    await run(['checkout', '-q', '-b', 'y', 'main'], work);
    await commit('y');
    const x = await rev('x');
    const y = await rev('y');
    await run(['checkout', '-q', 'x'], work);
    await run(['merge', '-q', '--no-edit', y], work);
    await run(['checkout', '-q', 'y'], work);
    await run(['merge', '-q', '--no-edit', x], work);
    await commit('x');
    await commit('y');
    await expectSameAsTwoCalls(await rev('x'), await rev('y'));
    await expectSameAsTwoCalls(await rev('y'), await rev('x'));
  });

  it('a head already in the target: no commits, the head is the base', async () => {
    const older = await rev('main~1');
    expect(await expectSameAsTwoCalls(older, await rev('main'))).toBe('walked');
    expect(await expectSameAsTwoCalls(await rev('main'), await rev('main'))).toBe('walked');
  });

  it('unrelated histories: every commit of the head, no base', async () => {
    await run(['checkout', '-q', '--orphan', 'orphan'], work);
    await run(['rm', '-rq', '--cached', '.'], work);
    await commit('orphan');
    await commit('orphan');
    const walked = await commitsAndMergeBase(repository(), await rev('orphan'), await rev('main'), 10_000);
    expect(walked.base).toBeNull();
    expect(await expectSameAsTwoCalls(await rev('orphan'), await rev('main'))).toBe('walked');
  });

  it('a walk cut by the limit leaves the base to git', async () => {
    await run(['checkout', '-q', '-f', '-b', 'long', 'main'], work);
    for (let i = 0; i < 4; i += 1) await commit('long');
    expect(await expectSameAsTwoCalls(await rev('long'), await rev('main'), 2)).toBe('asked');
    expect(await expectSameAsTwoCalls(await rev('long'), await rev('main'), 4)).toBe('asked');
    expect(await expectSameAsTwoCalls(await rev('long'), await rev('main'), 5)).toBe('walked');
  });
});
