import { GitError } from './cli.js';
import { parseNameStatus, type PathChange } from './diff.js';
import { ImmutableAnswers } from './immutable-answers.js';
import { git, hasRepository } from './in-repository.js';
import { isFullSha } from './object-names.js';

/** A commit as git stores it; the views (GitLab's Commit entity, hook payloads) are built from this. */
export interface CommitRecord {
  readonly id: string;
  readonly parentIds: string[];
  readonly authorName: string;
  readonly authorEmail: string;
  readonly authoredDate: string;
  readonly committerName: string;
  readonly committerEmail: string;
  readonly committedDate: string;
  /** The raw message, trailing newline kept, as GitLab shows it. */
  readonly message: string;
}

/** A commit with the paths it changed against its first parent (push hooks list them). */
export interface CommitWithChanges extends CommitRecord {
  readonly changes: PathChange[];
}

const RECORD = '\x1e';
const FIELD = '\x1f';
/**
 * The one format every commit read uses: a record mark, the fields, the message, and a closing
 * field mark, so whatever git prints after the message (`--name-status`) is told apart from it.
 */
const FORMAT = `--format=${RECORD}${['%H', '%P', '%an', '%ae', '%aI', '%cn', '%ce', '%cI', '%B'].join(FIELD)}${FIELD}`;

function parseLog(stdout: string): { commit: CommitRecord; after: string }[] {
  return stdout
    .split(RECORD)
    .slice(1)
    .map((record) => {
      const [id, parents, authorName, authorEmail, authoredDate, committerName, committerEmail, committedDate, ...rest] = record.split(FIELD);
      const commit: CommitRecord = {
        id: id!,
        parentIds: parents ? parents.split(' ').filter(Boolean) : [],
        authorName: authorName!,
        authorEmail: authorEmail!,
        authoredDate: authoredDate!,
        committerName: committerName!,
        committerEmail: committerEmail!,
        committedDate: committedDate!,
        // A message holding the field mark itself is joined back; the last part follows the closing mark.
        message: rest.slice(0, -1).join(FIELD),
      };
      return { commit, after: rest[rest.length - 1] ?? '' };
    });
}

/**
 * The commits the given shas name, in the same order (each looked up once). A commit the
 * repository lacks (a secondary still syncing it) is left out, as is everything when the
 * repository itself is missing.
 */
export async function readCommits(repository: string, shas: readonly string[]): Promise<CommitRecord[]> {
  const unique = [...new Set(shas)].filter(isFullSha);
  const byId = new Map<string, CommitRecord>();
  for (const sha of unique) {
    const known = commitRecords.get(`${repository}\0${sha}`);
    if (known) byId.set(sha, known);
  }
  const missing = unique.filter((sha) => !byId.has(sha));
  if (missing.length && (await hasRepository(repository))) {
    const { stdout } = await git(repository, ['show', '-s', '--no-color', '--no-walk=unsorted', '--ignore-missing', FORMAT, ...missing, '--']);
    for (const { commit } of parseLog(stdout)) {
      byId.set(commit.id, commit);
      if (commit.message.length <= MAX_KEPT_MESSAGE) commitRecords.set(`${repository}\0${commit.id}`, commit);
    }
  }
  return shas.flatMap((sha) => byId.get(sha) ?? []);
}

/** Commit records read before, by repository and id (a found commit never changes; a missing one is asked again). */
const commitRecords = new ImmutableAnswers<CommitRecord>(20_000);
/** A commit with a longer message is read again when asked, not kept. */
const MAX_KEPT_MESSAGE = 16 * 1024;

/** One commit; an error when the repository lacks it. */
export async function readCommit(repository: string, sha: string): Promise<CommitRecord> {
  const [commit] = await readCommits(repository, [sha]);
  if (!commit) throw new Error(`commit ${sha} could not be read`);
  return commit;
}

export interface LogFilter {
  readonly since?: string;
  readonly until?: string;
  readonly path?: string;
  /** Commits whose message contains this text, case-insensitively (a fixed string, not a pattern). */
  readonly grep?: string;
}

const filterArgs = (filter: LogFilter) => [
  ...(filter.since ? [`--since=${filter.since}`] : []),
  ...(filter.until ? [`--until=${filter.until}`] : []),
  ...(filter.grep !== undefined ? ['--regexp-ignore-case', '--fixed-strings', `--grep=${filter.grep}`] : []),
];
const pathArgs = (filter: LogFilter) => (filter.path ? ['--', filter.path] : ['--']);

/** How many commits `git log <revisions>` lists for the filter. */
export async function countLog(repository: string, revisions: readonly string[], filter: LogFilter = {}): Promise<number> {
  const { stdout } = await git(repository, ['rev-list', '--count', ...filterArgs(filter), ...revisions, ...pathArgs(filter)]);
  return Number(stdout.trim()) || 0;
}

/** One page of `git log <revisions>` (newest first: a sha, or `--all`) and the total count for the same filter. */
export async function listCommits(repository: string, revisions: readonly string[], filter: LogFilter, offset: number, limit: number): Promise<{ commits: CommitRecord[]; total: number }> {
  // A page of the history of commits (not of refs such as `--all`) with absolute dates never changes.
  const key = revisions.every(isFullSha) ? JSON.stringify([repository, revisions, filter.since, filter.until, filter.path, filter.grep, offset, limit]) : null;
  const known = key === null ? undefined : historyPages.get(key);
  if (known) return known;
  const [log, total] = await Promise.all([
    git(repository, ['log', FORMAT, `--skip=${offset}`, `--max-count=${limit}`, ...filterArgs(filter), ...revisions, ...pathArgs(filter)]),
    countLog(repository, revisions, filter),
  ]);
  const page = { commits: parseLog(log.stdout).map(({ commit }) => commit), total };
  if (key !== null) historyPages.set(key, page);
  return page;
}

/** Pages of history answered before, by repository, commits, filter and window. */
const historyPages = new ImmutableAnswers<{ commits: CommitRecord[]; total: number }>(1_000);

/** The commits in `from..to`, oldest first (GitLab's compare order). */
export async function commitsBetween(repository: string, from: string, to: string): Promise<CommitRecord[]> {
  const { stdout } = await git(repository, ['log', '--reverse', FORMAT, `${from}..${to}`, '--']);
  return parseLog(stdout).map(({ commit }) => commit);
}

/** The newest `limit` commits reachable from `head` but from none of `excluded`, newest first (a merge request's commits). */
export async function commitsExcluding(repository: string, head: string, excluded: readonly string[], limit: number): Promise<CommitRecord[]> {
  const { stdout } = await git(repository, ['log', FORMAT, `--max-count=${limit}`, head, ...(excluded.length ? ['--not', ...excluded] : []), '--']);
  return parseLog(stdout).map(({ commit }) => commit);
}

/**
 * A merge request's commits and its merge base in one `git log --boundary`: the newest `limit`
 * commits reachable from `head` but not from `start`, newest first (commitsExcluding), and the
 * merge base of `start` and `head` when the walk shows it without doubt. Every best common
 * ancestor is a boundary commit (an excluded parent of a listed commit), so: nothing listed means
 * `head` is in `start` (the base is `head`); commits but no boundary, unrelated histories (null);
 * one boundary commit, that is the base. Several, or a walk cut by the limit, leave `base`
 * undefined: the caller asks `git merge-base`.
 */
export async function commitsAndMergeBase(repository: string, head: string, start: string, limit: number): Promise<{ commits: CommitRecord[]; base: string | null | undefined }> {
  const { stdout } = await git(repository, ['log', '--boundary', `--format=%m${FORMAT.slice('--format='.length)}`, `--max-count=${limit}`, head, '--not', start, '--']);
  const commits: CommitRecord[] = [];
  const boundary: string[] = [];
  // Each record is `%m` (`-` for a boundary commit) then the usual one: the first mark opens the
  // output, each later one follows the previous record's closing field mark and newline.
  let mark = stdout.slice(0, Math.max(0, stdout.indexOf(RECORD)));
  for (const { commit, after } of parseLog(stdout)) {
    if (mark === '-') boundary.push(commit.id);
    else commits.push(commit);
    mark = after.replace(/\n/g, '');
  }
  if (commits.length === 0) return { commits, base: head };
  if (commits.length >= limit || boundary.length > 1) return { commits, base: undefined };
  return { commits, base: boundary[0] ?? null };
}

/** The newest `limit` commits of `git log <revisions>` with the paths each changed, oldest first (a push's commits). */
export async function logWithChanges(repository: string, revisions: readonly string[], limit: number): Promise<CommitWithChanges[]> {
  const { stdout } = await git(repository, ['log', '--no-renames', '--name-status', FORMAT, `--max-count=${limit}`, ...revisions, '--']);
  return parseLog(stdout)
    .map(({ commit, after }) => ({ ...commit, changes: parseNameStatus(after) }))
    .reverse();
}

/** The last commit at or before `sha` that touched `filePath`; null when none did. */
export async function lastCommitTouching(repository: string, sha: string, filePath: string): Promise<string | null> {
  const key = isFullSha(sha) ? `${repository}\0${sha}\0${filePath}` : null;
  const known = key === null ? undefined : lastCommits.get(key);
  if (known !== undefined) return known;
  const { stdout } = await git(repository, ['log', '-1', '--format=%H', sha, '--', filePath]);
  const last = stdout.trim() || null;
  if (key !== null) lastCommits.set(key, last);
  return last;
}

/** The last commit touching a path below a commit, by repository, commit and path (null kept too: the path's history is as fixed). */
const lastCommits = new ImmutableAnswers<string | null>(10_000);

/**
 * The merge base of two commits, or null when their histories are unrelated. With more, git's
 * answer for `merge-base a b c...`: the base of `a` and a merge of the others (GitLab's merge_base).
 */
export async function mergeBase(repository: string, a: string, b: string, ...more: string[]): Promise<string | null> {
  try {
    const { stdout } = await git(repository, ['merge-base', a, b, ...more]);
    return stdout.trim() || null;
  } catch (error) {
    // merge-base exits 1 when the commits share no history: that is the null answer.
    if (error instanceof GitError && error.exitCode === 1) return null;
    throw error;
  }
}

/** The authors of the newest `limit` commits of a revision, merges left out, newest first (GitLab's contributors read 2000). */
export async function commitAuthors(repository: string, sha: string, limit: number): Promise<{ name: string; email: string }[]> {
  const { stdout } = await git(repository, ['log', '--no-merges', `--max-count=${limit}`, `--format=%an${FIELD}%ae`, sha, '--']);
  return stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [name, email] = line.split(FIELD);
      return { name: name ?? '', email: email ?? '' };
    });
}
