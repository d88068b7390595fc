import { compareEntity } from '../../entities/repository.js';
import { notFound } from '../../errors.js';
import { commitsBetween, mergeBase } from '../../git/commit-log.js';
import { diffFiles } from '../../git/diff.js';
import { resolveCommit } from '../../git/refs.js';

/**
 * GitLab's compare: the commits in from..to (oldest first) and the diff from the merge base (or
 * from `from` itself when `straight`, or when the histories are unrelated) to `to`.
 */
export async function compareRefs(repository: string, from: string, to: string, straight: boolean) {
  const [fromSha, toSha] = await Promise.all([resolveCommit(repository, from), resolveCommit(repository, to)]);
  if (!fromSha || !toSha) throw notFound('Commit');
  const base = straight ? fromSha : ((await mergeBase(repository, fromSha, toSha)) ?? fromSha);
  const [commits, diffs] = await Promise.all([commitsBetween(repository, fromSha, toSha), base === toSha ? [] : diffFiles(repository, base, toSha)]);
  return compareEntity(commits, diffs, from === to);
}
