import { readCommits, type CommitRecord } from './commit-log.js';
import { git } from './in-repository.js';
import { commitTree, isAncestor, mergeTree, treeOf, type GitIdentity, type TreeMerge } from './merges.js';

/**
 * Cherry-pick, revert and rebase without a work tree. Each applies one change (the difference
 * between two commits) onto another commit: a three-way merge whose base is the change's "before"
 * side. git 2.39's merge-tree picks the merge base itself (`--merge-base` came in 2.40), so the
 * base is made explicit with three scratch commits: a root commit holding the base's tree, and
 * the two sides re-parented on it, so the only merge base merge-tree can find is that root. They
 * are written with a fixed identity and date, so the same change writes the same objects again;
 * nothing refers to them and git's gc prunes them.
 */
const SCRATCH: GitIdentity = { name: 'geoforge', email: 'geoforge@localhost', date: '1970-01-01T00:00:00Z' };

/** The empty tree, stored once so a scratch commit of a root commit's "before" side names a real object. */
async function emptyTree(repository: string): Promise<string> {
  return (await git(repository, ['mktree'], { input: '' })).stdout.trim();
}

/**
 * The tree that applying the change `before -> after` (commits; `before` null for the empty tree)
 * onto `onto` gives, or the conflicting paths.
 */
async function applyChange(repository: string, onto: string, before: string | null, after: string): Promise<TreeMerge> {
  const baseTree = before === null ? await emptyTree(repository) : await treeOf(repository, before);
  const base = await commitTree(repository, baseTree, [], 'base', SCRATCH);
  const [ours, theirs] = await Promise.all([
    commitTree(repository, await treeOf(repository, onto), [base], 'ours', SCRATCH),
    commitTree(repository, await treeOf(repository, after), [base], 'theirs', SCRATCH),
  ]);
  return mergeTree(repository, ours, theirs);
}

/** What a cherry-pick or revert builds: the new commit on top of `onto`, or `empty` (nothing would change) or `conflict`. */
export type PickResult = { readonly ok: true; readonly sha: string } | { readonly ok: false; readonly reason: 'conflict' | 'empty' };

async function commitChange(
  repository: string,
  onto: string,
  change: TreeMerge,
  message: string,
  author: GitIdentity,
  committer: GitIdentity,
): Promise<PickResult> {
  if (!change.clean) return { ok: false, reason: 'conflict' };
  if (change.tree === (await treeOf(repository, onto))) return { ok: false, reason: 'empty' };
  return { ok: true, sha: await commitTree(repository, change.tree, [onto], message, author, committer) };
}

/**
 * Cherry-picks `commit` onto `onto` (GitLab's Repository#cherry_pick): the change from its first
 * parent (the mainline of a merge commit), the original author and date kept, the message
 * GitLab 17's Commit#cherry_pick_message writes: the original message as stored, a blank line and
 * `(cherry-picked from commit <sha>)`.
 */
export async function cherryPickCommit(repository: string, commit: CommitRecord, onto: string, committer: GitIdentity): Promise<PickResult> {
  const change = await applyChange(repository, onto, commit.parentIds[0] ?? null, commit.id);
  const author = { name: commit.authorName, email: commit.authorEmail, date: commit.authoredDate };
  const message = `${commit.message}\n\n(cherry-picked from commit ${commit.id})`;
  return commitChange(repository, onto, change, message, author, committer);
}

/**
 * GitLab's Commit#title: the first line, and past 99 characters its first 78 or so cut at a space
 * with `...` (Rails' truncate(81, separator: ' ', omission: '...')).
 */
function commitTitle(message: string): string {
  const full = message.split(/[\r\n]/, 1)[0]!;
  if (full.length < 100) return full;
  const space = full.lastIndexOf(' ', 78);
  return `${full.slice(0, space >= 0 ? space : 78)}...`;
}

/**
 * Reverts `commit` on `onto` (GitLab's Repository#revert): the change from the commit back to its
 * first parent, authored and committed by the caller, with GitLab's message
 * (`Revert "<title>"`, blank line, `This reverts commit <sha>`).
 */
export async function revertCommit(repository: string, commit: CommitRecord, onto: string, committer: GitIdentity): Promise<PickResult> {
  const parent = commit.parentIds[0] ?? null;
  const change = parent === null ? await applyChangeToEmpty(repository, onto, commit.id) : await applyChange(repository, onto, commit.id, parent);
  const message = `Revert "${commitTitle(commit.message).trim()}"\n\nThis reverts commit ${commit.id}`;
  return commitChange(repository, onto, change, message, committer, committer);
}

/** Reverting a root commit: its change runs from its tree to the empty tree. */
async function applyChangeToEmpty(repository: string, onto: string, commit: string): Promise<TreeMerge> {
  const empty = await commitTree(repository, await emptyTree(repository), [], 'empty', SCRATCH);
  return applyChange(repository, onto, commit, empty);
}

/** What a rebase gives: the new head (the old one when nothing needed replaying), or the commit whose change conflicts. */
export type RebaseResult = { readonly ok: true; readonly head: string; readonly replayed: number } | { readonly ok: false; readonly conflictAt: string };

/**
 * Replays the commits of `source` that `onto` lacks on top of `onto`, oldest first, as
 * `git rebase` does by default: merge commits are left out (the history becomes linear), a commit
 * whose change is already there (empty once applied) is dropped, authors, dates and messages are
 * kept and the caller is the committer. Writes commits only; moving the branch is the caller's
 * compare-and-swap.
 */
export async function rebaseCommits(repository: string, source: string, onto: string, committer: GitIdentity): Promise<RebaseResult> {
  // Already on top of `onto`: git rebase leaves such a branch as it is.
  if (await isAncestor(repository, onto, source)) return { ok: true, head: source, replayed: 0 };
  const { stdout } = await git(repository, ['rev-list', '--reverse', '--topo-order', '--no-merges', `${onto}..${source}`]);
  const shas = stdout.split('\n').filter(Boolean);
  if (shas.length === 0) return { ok: true, head: source, replayed: 0 };
  const commits = await readCommits(repository, shas);
  let head = onto;
  let replayed = 0;
  for (const commit of commits) {
    const change = await applyChange(repository, head, commit.parentIds[0] ?? null, commit.id);
    const author = { name: commit.authorName, email: commit.authorEmail, date: commit.authoredDate };
    const picked = await commitChange(repository, head, change, commit.message, author, committer);
    if (picked.ok) {
      head = picked.sha;
      replayed += 1;
    } else if (picked.reason === 'conflict') {
      return { ok: false, conflictAt: commit.id };
    }
  }
  return { ok: true, head, replayed };
}
