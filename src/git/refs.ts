import { GitError, runGit } from './cli.js';
import { git, hasRepository } from './in-repository.js';
import { isFullSha } from './object-names.js';
import { ImmutableAnswers } from './immutable-answers.js';
import { objectInfo } from './object-reader.js';
import { allBranchHeadsFromFiles, branchHeadsFromFiles, isPlainBranchName, namedRefFromFiles } from './ref-files.js';

/**
 * A revision that is passed on to git: never empty, never something git could read as an option,
 * no control character or whitespace, and no range (`..`) or reflog expression (`@{`), which no
 * branch, tag or sha contains.
 */
const isSafeRevision = (revision: string | undefined): revision is string =>
  !!revision && !revision.startsWith('-') && !/[\x00-\x1f\x7f\s]|\.\.|@\{/.test(revision);

/** Exit 1 is git's "no" (`rev-parse --verify --quiet` for an unknown name, `check-ref-format` for a bad one); anything else is a failure. */
const isNo = (error: unknown): boolean => error instanceof GitError && error.exitCode === 1;

/** The full sha of the commit a branch, tag, sha or other safe revision names; null when it names none or the repository is missing. */
export async function resolveCommit(repository: string, revision: string | undefined): Promise<string | null> {
  if (!isSafeRevision(revision) || !(await hasRepository(repository))) return null;
  // A full sha, or a plain ref name read from the ref files, is peeled by the object reader; what
  // is left (HEAD, `v1~2`, an abbreviated sha, a symbolic ref) is rev-parse's.
  const named = isFullSha(revision) ? revision : await namedRefFromFiles(repository, revision);
  if (named === null && !/^[0-9a-f]{4,39}$/i.test(revision)) return null;
  if (named) {
    const commit = await objectInfo(repository, `${named}^{commit}`);
    return commit && isFullSha(commit.id) ? commit.id : null;
  }
  try {
    const { stdout } = await git(repository, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${revision}^{commit}`]);
    const sha = stdout.trim();
    return isFullSha(sha) ? sha : null;
  } catch (error) {
    // Unknown names, and names of trees or blobs, exit 1: that is the null answer.
    if (isNo(error)) return null;
    throw error;
  }
}

/** The commit a branch points at, or null. */
export async function branchCommit(repository: string, branch: string): Promise<string | null> {
  return isSafeRevision(branch) ? resolveCommit(repository, `refs/heads/${branch}`) : null;
}

/**
 * The commits several branches point at, read from the ref files (branchHeadsFromFiles) or else in
 * one `for-each-ref` (branchCommit for each, at most one git process): by branch name, a branch that does not exist (or whose name is no safe revision, or
 * whose repository is missing) absent. Only exact names count, never what a name matches below it.
 */
export async function branchCommits(repository: string, branches: readonly string[]): Promise<Map<string, string>> {
  const safe = branches.filter(isSafeRevision);
  const fromFiles = safe.length ? await branchHeadsFromFiles(repository, safe) : null;
  // As below: only full SHA-1 names, as branchCommit answers.
  if (fromFiles) return new Map([...fromFiles].filter(([, sha]) => isFullSha(sha)));
  const refs = [...new Set(safe)].map((branch) => `refs/heads/${branch}`);
  const heads = new Map<string, string>();
  if (refs.length === 0 || !(await hasRepository(repository))) return heads;
  const { stdout } = await git(repository, ['for-each-ref', '--format=%(objectname) %(refname)', '--end-of-options', ...refs]);
  const wanted = new Set(refs);
  for (const line of stdout.split('\n')) {
    const space = line.indexOf(' ');
    const ref = line.slice(space + 1);
    if (space > 0 && wanted.has(ref) && isFullSha(line.slice(0, space))) heads.set(ref.slice('refs/heads/'.length), line.slice(0, space));
  }
  return heads;
}

/** Whether git accepts `name` as a branch name. */
export async function isValidBranchName(name: string): Promise<boolean> {
  if (!isSafeRevision(name) || name === 'HEAD') return false;
  // Ordinary names (what nearly every request sends) pass git's rules without asking git; the rest it judges.
  if (isPlainBranchName(name) && !name.endsWith('.')) return true;
  try {
    await runGit(['check-ref-format', `refs/heads/${name}`]);
    return true;
  } catch (error) {
    if (isNo(error)) return false;
    throw error;
  }
}

/** Every branch as name and sha, sorted by name; none for a missing repository. */
export async function listBranchHeads(repository: string): Promise<{ name: string; sha: string }[]> {
  if (!(await hasRepository(repository))) return [];
  const fromFiles = await allBranchHeadsFromFiles(repository);
  const heads =
    fromFiles ??
    (await git(repository, ['for-each-ref', '--format=%(objectname) %(refname:strip=2)', 'refs/heads/'])).stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => ({ sha: line.slice(0, line.indexOf(' ')), name: line.slice(line.indexOf(' ') + 1) }));
  return heads.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Whether the repository has no branch at all (a new project, or one not on disk). */
export async function isEmptyRepository(repository: string): Promise<boolean> {
  if (!(await hasRepository(repository))) return true;
  const fromFiles = await allBranchHeadsFromFiles(repository, 1);
  if (fromFiles) return fromFiles.length === 0;
  const { stdout } = await git(repository, ['for-each-ref', '--count=1', '--format=%(refname)', 'refs/heads/']);
  return stdout.trim() === '';
}

/** The names of the branches whose heads `sha` contains (GitLab's merged_to_root_ref? asks this of the default branch's head). */
export async function branchesMergedInto(repository: string, sha: string): Promise<Set<string>> {
  const { stdout } = await git(repository, ['for-each-ref', `--merged=${sha}`, '--format=%(refname:strip=2)', 'refs/heads/']);
  return new Set(stdout.split('\n').filter(Boolean));
}

/** Whether a commit is an ancestor of another, by repository and both ids: a fact of history that never changes. */
const ancestry = new ImmutableAnswers<boolean>(20_000);

/**
 * The names of these branches whose heads `target` contains (branchesMergedInto for a page of
 * branches), answered from earlier answers by commit when every head was asked before, else with
 * one `for-each-ref --merged`. A head it does not list is kept as not merged only when its branch
 * still points at it after the listing (a branch that moved meanwhile is asked again next time).
 */
export async function headsMergedInto(repository: string, target: string, heads: readonly { name: string; sha: string }[]): Promise<Set<string>> {
  const key = (sha: string) => `${repository}\0${target}\0${sha}`;
  const unknown = heads.filter((head) => ancestry.get(key(head.sha)) === undefined);
  let listed = new Set<string>();
  if (unknown.length) {
    const { stdout } = await git(repository, ['for-each-ref', `--merged=${target}`, '--format=%(objectname)', 'refs/heads/']);
    listed = new Set(stdout.split('\n').filter(Boolean));
    const current = await branchHeadsFromFiles(repository, unknown.map((head) => head.name));
    for (const head of unknown) {
      if (listed.has(head.sha)) ancestry.set(key(head.sha), true);
      else if (current?.get(head.name) === head.sha) ancestry.set(key(head.sha), false);
    }
  }
  return new Set(heads.filter((head) => ancestry.get(key(head.sha)) ?? listed.has(head.sha)).map((head) => head.name));
}

/** The branch holding a commit, the default branch first (GitLab's `branch_names_contains(sha).first`); null when none. */
export async function branchContaining(repository: string, sha: string, defaultBranch: string): Promise<string | null> {
  if (!isFullSha(sha) || !(await hasRepository(repository))) return null;
  const { stdout } = await git(repository, ['for-each-ref', '--contains', sha, '--format=%(refname:short)', 'refs/heads']);
  const branches = stdout.split('\n').filter(Boolean);
  return branches.includes(defaultBranch) ? defaultBranch : (branches[0] ?? null);
}

/** An annotated tag's message, its signature left out; null for a lightweight tag (the sha names the commit itself). */
export async function annotatedTagMessage(repository: string, sha: string): Promise<string | null> {
  const type = (await git(repository, ['cat-file', '-t', sha])).stdout.trim();
  if (type !== 'tag') return null;
  const { stdout } = await git(repository, ['cat-file', 'tag', sha]);
  const body = stdout.indexOf('\n\n');
  return body < 0 ? '' : stdout.slice(body + 2).replace(/\n?-----BEGIN PGP SIGNATURE-----[\s\S]*$/, '').trimEnd();
}

/** The branches and tags whose history holds a commit, as `{type, name}`: branches first, each kind by name. */
export async function refsContaining(repository: string, sha: string, kinds: { branches: boolean; tags: boolean }): Promise<{ type: 'branch' | 'tag'; name: string }[]> {
  if (!isFullSha(sha) || (!kinds.branches && !kinds.tags)) return [];
  const patterns = [...(kinds.branches ? ['refs/heads/'] : []), ...(kinds.tags ? ['refs/tags/'] : [])];
  const { stdout } = await git(repository, ['for-each-ref', '--contains', sha, '--format=%(refname)', ...patterns]);
  const refs = stdout
    .split('\n')
    .filter(Boolean)
    .map((ref) => (ref.startsWith('refs/heads/') ? { type: 'branch' as const, name: ref.slice('refs/heads/'.length) } : { type: 'tag' as const, name: ref.slice('refs/tags/'.length) }));
  return [...refs.filter((ref) => ref.type === 'branch'), ...refs.filter((ref) => ref.type === 'tag')];
}
