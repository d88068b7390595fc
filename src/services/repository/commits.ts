import type { CommitRecord, DiffStats, FileDiff } from '../../entities/repository.js';
import { git } from './git.js';

const RECORD = '\x1e';
const FIELD = '\x1f';
const FORMAT = `--format=${RECORD}${['%H', '%P', '%an', '%ae', '%aI', '%cn', '%ce', '%cI', '%B'].join(FIELD)}`;

function parseCommits(stdout: string): CommitRecord[] {
  return stdout
    .split(RECORD)
    .slice(1)
    .map((record) => {
      const [id, parents, authorName, authorEmail, authoredDate, committerName, committerEmail, committedDate, ...rest] = record.split(FIELD);
      return {
        id: id!,
        parentIds: parents ? parents.split(' ').filter(Boolean) : [],
        authorName: authorName!,
        authorEmail: authorEmail!,
        authoredDate: authoredDate!,
        committerName: committerName!,
        committerEmail: committerEmail!,
        committedDate: committedDate!,
        message: rest.join(FIELD).replace(/\n$/, ''),
      };
    });
}

/** The commits the given shas name, in the same order (each looked up once). */
export async function readCommits(repository: string, shas: readonly string[]): Promise<CommitRecord[]> {
  if (shas.length === 0) return [];
  const unique = [...new Set(shas)];
  const { stdout } = await git(repository, ['show', '-s', '--no-walk=unsorted', FORMAT, ...unique, '--']);
  const byId = new Map(parseCommits(stdout).map((commit) => [commit.id, commit]));
  return shas.map((sha) => byId.get(sha)!).filter(Boolean);
}

export async function readCommit(repository: string, sha: string): Promise<CommitRecord> {
  const [commit] = await readCommits(repository, [sha]);
  if (!commit) throw new Error(`commit ${sha} could not be read`);
  return commit;
}

export interface LogFilter {
  readonly since?: string;
  readonly until?: string;
  readonly path?: string;
}

const filterArgs = (filter: LogFilter) => [...(filter.since ? [`--since=${filter.since}`] : []), ...(filter.until ? [`--until=${filter.until}`] : [])];
const pathArgs = (filter: LogFilter) => (filter.path ? ['--', filter.path] : ['--']);

/** One page of `git log <sha>` (newest first) and the total count for the same filter. */
export async function listCommits(repository: string, sha: string, filter: LogFilter, offset: number, limit: number): Promise<{ commits: CommitRecord[]; total: number }> {
  const [log, count] = await Promise.all([
    git(repository, ['log', FORMAT, `--skip=${offset}`, `--max-count=${limit}`, ...filterArgs(filter), sha, ...pathArgs(filter)]),
    git(repository, ['rev-list', '--count', ...filterArgs(filter), sha, ...pathArgs(filter)]),
  ]);
  return { commits: parseCommits(log.stdout), total: Number(count.stdout.trim()) || 0 };
}

/** The commits in `from..to`, oldest first (GitLab's compare order). */
export async function commitsBetween(repository: string, from: string, to: string): Promise<CommitRecord[]> {
  const { stdout } = await git(repository, ['log', '--reverse', FORMAT, `${from}..${to}`, '--']);
  return parseCommits(stdout);
}

const treeArgs = (base: string | null, head: string) => (base ? [base, head] : ['--root', head]);

/** Lines added and removed from `base` (null: the empty tree) to `head`. */
export async function diffStats(repository: string, base: string | null, head: string): Promise<DiffStats> {
  const { stdout } = await git(repository, ['diff-tree', '-r', '--no-commit-id', '--numstat', ...treeArgs(base, head)]);
  let additions = 0;
  let deletions = 0;
  for (const line of stdout.split('\n')) {
    const [added, removed] = line.split('\t');
    if (added && added !== '-') additions += Number(added) || 0;
    if (removed && removed !== '-') deletions += Number(removed) || 0;
  }
  return { additions, deletions };
}

/**
 * The file diffs from `base` (null: the empty tree) to `head`, renames detected: the raw listing
 * (-z, exact paths and modes) and the patch come in the same order, one `diff --git` section per
 * file, so they are zipped by position. `diff` holds the hunks only, as GitLab shows them.
 */
export async function diffFiles(repository: string, base: string | null, head: string): Promise<FileDiff[]> {
  const [raw, patch] = await Promise.all([
    git(repository, ['diff-tree', '-r', '-z', '-M', '--no-commit-id', '--raw', ...treeArgs(base, head)]),
    git(repository, ['diff-tree', '-r', '-M', '--no-commit-id', '--no-color', '--no-ext-diff', '-p', ...treeArgs(base, head)]),
  ]);
  const sections = patch.stdout.split(/^diff --git /m).slice(1);
  const parts = raw.stdout.split('\0');
  const diffs: FileDiff[] = [];
  for (let i = 0; i < parts.length; ) {
    const meta = parts[i++];
    if (!meta || !meta.startsWith(':')) continue;
    const [aMode, bMode, , , status = ''] = meta.slice(1).split(' ');
    const first = parts[i++] ?? '';
    const renamed = status.startsWith('R') || status.startsWith('C');
    const second = renamed ? (parts[i++] ?? '') : first;
    const section = sections[diffs.length] ?? '';
    const hunk = section.search(/^@@ /m);
    const binary = section.match(/^Binary files .* differ$/m);
    diffs.push({
      oldPath: first,
      newPath: second,
      aMode: aMode === '000000' ? '0' : aMode!,
      bMode: bMode === '000000' ? '0' : bMode!,
      diff: hunk >= 0 ? section.slice(hunk) : binary ? `${binary[0]}\n` : '',
      newFile: status === 'A',
      renamedFile: status.startsWith('R'),
      deletedFile: status === 'D',
    });
  }
  return diffs;
}

/** The merge base of two commits, or null when their histories are unrelated. */
export async function mergeBase(repository: string, a: string, b: string): Promise<string | null> {
  return git(repository, ['merge-base', a, b]).then(
    ({ stdout }) => stdout.trim() || null,
    () => null,
  );
}
