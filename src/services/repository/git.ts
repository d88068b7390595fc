import { runGit, streamGit, type GitOptions } from '../../git/cli.js';
import { repositoryPath } from '../../storage/layout.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import type { SiteContext } from '../../site-context.js';

/** The all-zero object name: a ref that does not exist (update-ref's "must not exist yet"). */
export const ZERO_SHA = '0'.repeat(40);

const READ_TIMEOUT_MS = 30_000;
/** Pathspecs are file names, never globs: a path like `*.md` names that one file. */
const LITERAL = { GIT_LITERAL_PATHSPECS: '1' };

export const repositoryOf = (ctx: SiteContext, project: Pick<ProjectRow, 'id'>): string => repositoryPath(ctx.config.dataDir, project.id);

/** `git --git-dir <repository> <args>` with quoting of unusual paths off and literal pathspecs. */
export function git(repository: string, args: readonly string[], options: GitOptions = {}) {
  return runGit(['-c', 'core.quotePath=false', '--git-dir', repository, ...args], {
    timeoutMs: READ_TIMEOUT_MS,
    ...options,
    env: { ...LITERAL, ...options.env },
  });
}

/** The same, for output that must stay bytes (blobs), with optional stdin. */
export async function gitBytes(repository: string, args: readonly string[], input?: Buffer, options: GitOptions = {}): Promise<Buffer> {
  const child = streamGit(['-c', 'core.quotePath=false', '--git-dir', repository, ...args], {
    timeoutMs: READ_TIMEOUT_MS,
    ...options,
    env: { ...LITERAL, ...options.env },
  });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stdin.end(input ?? Buffer.alloc(0));
  await child.done;
  return Buffer.concat(chunks);
}

/** A name git could read as an option or that holds control characters is never passed on. */
export const isSafeRevision = (ref: string | undefined): ref is string => !!ref && !ref.startsWith('-') && !/[\x00-\x1f\x7f]/.test(ref);

/** The commit a ref, branch, tag or sha names; null when it names none (or the repository is missing). */
export async function resolveCommit(repository: string, ref: string | undefined): Promise<string | null> {
  if (!isSafeRevision(ref)) return null;
  try {
    const { stdout } = await git(repository, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
    return stdout.trim() || null;
  } catch {
    return null;
  }
}

/** The commit a branch points at, or null. */
export async function branchCommit(repository: string, branch: string): Promise<string | null> {
  if (!isSafeRevision(branch)) return null;
  try {
    const { stdout } = await git(repository, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`]);
    return stdout.trim() || null;
  } catch {
    return null;
  }
}

/** Whether the repository has no branch at all (a new project). */
export async function isEmptyRepository(repository: string): Promise<boolean> {
  const { stdout } = await git(repository, ['for-each-ref', '--count=1', '--format=%(refname)', 'refs/heads/']).catch(() => ({ stdout: '' }));
  return stdout.trim() === '';
}

/** Whether git accepts `name` as a branch name. */
export async function isValidBranchName(name: string): Promise<boolean> {
  if (!isSafeRevision(name) || name === 'HEAD') return false;
  return runGit(['check-ref-format', `refs/heads/${name}`]).then(
    () => true,
    () => false,
  );
}
