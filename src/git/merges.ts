import { GitError } from './cli.js';
import { git } from './in-repository.js';
import { BLANK_SHA } from './object-names.js';
import { branchHeadsFromFiles } from './ref-files.js';

/** Merges of large trees take longer than reads; still bounded, so a stuck git never holds a branch's lock. */
const MERGE_TIMEOUT_MS = 120_000;

/** Who a commit names as author or committer; `date` (ISO 8601) keeps an original author date. */
export interface GitIdentity {
  readonly name: string;
  readonly email: string;
  readonly date?: string;
}

/** What a three-way merge of two commits gives: a clean tree, or the paths that conflict. */
export type TreeMerge =
  | { readonly clean: true; readonly tree: string }
  /** `unrelated` when the commits share no history (git refuses to merge those); `conflicts` is then empty. */
  | { readonly clean: false; readonly conflicts: readonly string[]; readonly unrelated: boolean };

/**
 * Merges `theirs` into `ours` without a work tree (`git merge-tree --write-tree`, git >= 2.38,
 * checked at boot by requireGitVersion): the merged tree is written to the object store and
 * nothing else changes, so mergeability checks and merges leave every ref alone. Exit 1 is a
 * conflict (the tree then holds conflict markers and is not used), never a failure.
 */
export async function mergeTree(repository: string, ours: string, theirs: string): Promise<TreeMerge> {
  // runGit, not the streaming wrapper: a merge is an API request's work and keeps its priority.
  let result;
  try {
    result = await git(repository, ['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', ours, theirs], { timeoutMs: MERGE_TIMEOUT_MS, answerExitCodes: [1] });
  } catch (error) {
    if (error instanceof GitError && /unrelated histories/.test(error.stderr)) return { clean: false, conflicts: [], unrelated: true };
    throw error;
  }
  const [tree, ...paths] = result.stdout.split('\0');
  if (result.exitCode === 1) return { clean: false, conflicts: paths.filter(Boolean), unrelated: false };
  return { clean: true, tree: tree!.trim() };
}

const identityEnv = (author: GitIdentity, committer: GitIdentity): Record<string, string> => ({
  GIT_AUTHOR_NAME: author.name,
  GIT_AUTHOR_EMAIL: author.email,
  GIT_COMMITTER_NAME: committer.name,
  GIT_COMMITTER_EMAIL: committer.email,
  ...(author.date ? { GIT_AUTHOR_DATE: author.date } : {}),
  ...(committer.date ? { GIT_COMMITTER_DATE: committer.date } : {}),
});

/**
 * Writes one commit of `tree` with these parents (`git commit-tree`), the message read from stdin
 * so its length and characters never meet the argument list, and stored exactly as given (no
 * newline added, as Gitaly stores the messages of API writes); resolves to the new sha. No ref moves.
 */
export async function commitTree(
  repository: string,
  tree: string,
  parents: readonly string[],
  message: string,
  author: GitIdentity,
  committer: GitIdentity = author,
): Promise<string> {
  const args = ['commit-tree', tree, ...parents.flatMap((parent) => ['-p', parent]), '-F', '-'];
  const { stdout } = await git(repository, args, { input: message, env: identityEnv(author, committer), timeoutMs: MERGE_TIMEOUT_MS });
  return stdout.trim();
}

/**
 * Moves `ref` to `next` only if it still points at `expected` (BLANK_SHA: only if it does not
 * exist yet), in one `git update-ref <ref> <new> <old>`: git locks the ref and compares, so a
 * push or another merge that moved it meanwhile makes this answer false and change nothing.
 * `next` = BLANK_SHA deletes the ref under the same check.
 */
export async function updateRefIfAt(repository: string, ref: string, next: string, expected: string, reason: string): Promise<boolean> {
  const args = next === BLANK_SHA ? ['update-ref', '-m', reason, '-d', ref, expected] : ['update-ref', '-m', reason, ref, next, expected];
  try {
    await git(repository, args);
    return true;
  } catch (error) {
    // git's refusal: "cannot lock ref '<ref>': is at X but expected Y" (or "unable to resolve reference" for one that vanished).
    if (error instanceof GitError && /cannot lock ref/.test(error.stderr)) return false;
    throw error;
  }
}

/** Sets `ref` to `next` whatever it held (refs/merge-requests/<iid>/merge is the server's own ref: nothing to compare with). */
export async function setRef(repository: string, ref: string, next: string, reason: string): Promise<void> {
  await git(repository, ['update-ref', '-m', reason, ref, next]);
}

/** The tree a commit points at. */
export async function treeOf(repository: string, commit: string): Promise<string> {
  return (await git(repository, ['rev-parse', '--verify', '--end-of-options', `${commit}^{tree}`])).stdout.trim();
}

/** Whether `ancestor` is reachable from `descendant` (a fast-forward is possible). */
export async function isAncestor(repository: string, ancestor: string, descendant: string): Promise<boolean> {
  try {
    await git(repository, ['merge-base', '--is-ancestor', ancestor, descendant]);
    return true;
  } catch (error) {
    if (error instanceof GitError && error.exitCode === 1) return false;
    throw error;
  }
}

/** What a merge or squash builds: the new commit, or why there is none. */
export type BuiltMerge = { readonly ok: true; readonly sha: string } | { readonly ok: false; readonly conflicts: readonly string[]; readonly unrelated: boolean };

/**
 * Builds the commit that merging `sourceHead` into `targetHead` makes, without moving any ref:
 * a merge commit with the two parents (GitLab's merge method `merge`, always a merge commit), or
 * with `squash` one commit holding the same merged tree with the target head as its only parent.
 * `mergedTree` is a tree already merged from exactly these two heads (the merge ref's), which
 * spares the merge itself.
 */
export async function buildMerge(
  repository: string,
  targetHead: string,
  sourceHead: string,
  options: { readonly squash: boolean; readonly message: string; readonly author: GitIdentity; readonly committer: GitIdentity; readonly mergedTree?: string },
): Promise<BuiltMerge> {
  let tree = options.mergedTree;
  if (tree === undefined) {
    const merged = await mergeTree(repository, targetHead, sourceHead);
    if (!merged.clean) return { ok: false, conflicts: merged.conflicts, unrelated: merged.unrelated };
    tree = merged.tree;
  }
  const parents = options.squash ? [targetHead] : [targetHead, sourceHead];
  return { ok: true, sha: await commitTree(repository, tree, parents, options.message, options.author, options.committer) };
}

/**
 * The heads of several branches, read from the ref files (branchHeadsFromFiles) or else in one git
 * call (`for-each-ref`), by branch name; a branch that
 * does not exist is absent. Branch names come from the database, never from a pattern.
 */
export async function branchHeads(repository: string, branches: readonly string[]): Promise<Map<string, string>> {
  const fromFiles = await branchHeadsFromFiles(repository, branches);
  if (fromFiles) return fromFiles;
  const refs = [...new Set(branches)].map((branch) => `refs/heads/${branch}`);
  const { stdout } = await git(repository, ['for-each-ref', '--format=%(objectname) %(refname)', '--end-of-options', ...refs]);
  const wanted = new Set(refs);
  const heads = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const space = line.indexOf(' ');
    const ref = line.slice(space + 1);
    // for-each-ref also lists refs below a pattern (refs/heads/a/b for refs/heads/a): only exact names count.
    if (space > 0 && wanted.has(ref)) heads.set(ref.slice('refs/heads/'.length), line.slice(0, space));
  }
  return heads;
}

/**
 * Copies `branch` of another repository on this disk into `ref` of `repository` (a fork's source
 * branch into its upstream's refs/merge-requests/<iid>/head), so the merge can be computed where
 * it lands; resolves to the sha fetched, null when the branch no longer exists there.
 */
export async function fetchBranchInto(repository: string, fromRepository: string, branch: string, ref: string): Promise<string | null> {
  try {
    await git(repository, ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--end-of-options', fromRepository, `+refs/heads/${branch}:${ref}`], {
      timeoutMs: MERGE_TIMEOUT_MS,
    });
  } catch (error) {
    if (error instanceof GitError && /couldn't find remote ref/i.test(error.stderr)) return null;
    throw error;
  }
  return (await git(repository, ['rev-parse', '--verify', '--end-of-options', `${ref}^{commit}`])).stdout.trim();
}
