import { randomBytes } from 'node:crypto';
import { lstat, readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { groupWikiRepositoryPath, repositoryPath, snippetRepositoryPath, stagingRepositoryPath, wikiRepositoryPath } from '../storage/layout.js';
import { GitError, runGit, type GitOptions } from './cli.js';

export interface CloneOptions extends Pick<GitOptions, 'signal' | 'timeoutMs'> {
  /** The branch HEAD should name when the clone has it. */
  readonly defaultBranch: string;
  /** `-c key=value` settings for the clone command only (protocol restrictions). */
  readonly config?: readonly string[];
}

/**
 * Clones `source` (a local path or a URL) bare into the project's repository. The clone is
 * written to the staging path and renamed into place when complete, so the final path holds a
 * whole repository or nothing: a crash leaves at most the staging directory, which the next
 * attempt removes. The clone keeps no remote (an import URL may carry credentials). HEAD names
 * `defaultBranch` when the clone has that branch, else stays on the source's HEAD branch if that
 * exists, else (an empty source) names `defaultBranch`. Resolves to the branch HEAD names.
 */
export async function cloneBareRepository(dataDir: string, projectId: number, source: string, options: CloneOptions): Promise<string> {
  const staging = stagingRepositoryPath(dataDir, projectId);
  const git = { signal: options.signal, timeoutMs: options.timeoutMs };
  await rm(staging, { recursive: true, force: true });
  try {
    const config = (options.config ?? []).flatMap((setting) => ['-c', setting]);
    // --no-local: a local source is copied through the pack protocol, never hard-linked or shared.
    await runGit([...config, 'clone', '--bare', '--no-local', '--quiet', '--', source, staging], git);
    await runGit(['--git-dir', staging, 'config', '--remove-section', 'remote.origin'], git);
    const hasBranch = async (branch: string) =>
      (await runGit(['--git-dir', staging, 'for-each-ref', '--format=%(refname)', `refs/heads/${branch}`], git)).stdout.trim() !== '';
    let head = options.defaultBranch;
    if (!(await hasBranch(head))) {
      const sourceHead = await runGit(['--git-dir', staging, 'symbolic-ref', '--quiet', '--short', 'HEAD'], git).then(
        ({ stdout }) => stdout.trim(),
        (error: unknown) => {
          // symbolic-ref --quiet exits 1 for a detached HEAD: the source has no HEAD branch to keep.
          if (error instanceof GitError && error.exitCode === 1) return null;
          throw error;
        },
      );
      if (sourceHead && (await hasBranch(sourceHead))) head = sourceHead;
    }
    await setRepositoryHead(staging, head);
    await rename(staging, repositoryPath(dataDir, projectId));
    return head;
  } catch (error) {
    // The staging directory is unreachable half-work; the caller needs the clone's own failure.
    await rm(staging, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
}

/**
 * Creates an empty bare repository at `target` whose HEAD names `branch`, whole or not at all: git
 * writes it in a staging directory beside the target that is renamed into place, so a site killed
 * mid-way never leaves a directory without HEAD at the final path (which every read would then
 * fail on). An existing repository is left as it is, also one a concurrent call just made; a
 * directory there without HEAD is such a leftover and is replaced.
 */
async function initBareRepository(target: string, branch: string): Promise<string> {
  if (await hasHead(target)) return target;
  const staging = `${target}.init-${randomBytes(6).toString('hex')}`;
  try {
    await runGit(['init', '--bare', '--quiet', staging]);
    await setRepositoryHead(staging, branch);
    if (await hasHead(target)) return target;
    await rm(target, { recursive: true, force: true });
    await rename(staging, target);
  } catch (error) {
    // A concurrent call renamed its copy first: a repository is there either way.
    if (!(await hasHead(target))) throw error;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return target;
}

const hasHead = async (repository: string): Promise<boolean> => (await lstat(path.join(repository, 'HEAD')).catch(() => null)) !== null;

/** Creates an empty bare repository whose HEAD names the default branch (which has no commit yet). */
export function createBareRepository(dataDir: string, projectId: number, defaultBranch: string): Promise<string> {
  return initBareRepository(repositoryPath(dataDir, projectId), defaultBranch);
}

/** Creates the project's empty bare wiki repository (HEAD on master, as GitLab's wikis); an existing one is left as it is. */
export function createWikiRepository(dataDir: string, projectId: number): Promise<string> {
  return initBareRepository(wikiRepositoryPath(dataDir, projectId), 'master');
}

/** The branch a snippet's files live on: GitLab 17's default branch name. */
export const SNIPPET_DEFAULT_BRANCH = 'main';

/** Creates a snippet's empty bare repository, HEAD on the default branch; an existing one is left as it is. */
export function createSnippetRepository(dataDir: string, snippetId: number): Promise<string> {
  return initBareRepository(snippetRepositoryPath(dataDir, snippetId), SNIPPET_DEFAULT_BRANCH);
}

/** The branch a group wiki's pages live on: GitLab 17's default branch name. */
export const GROUP_WIKI_DEFAULT_BRANCH = 'main';

/** Creates a group's empty bare wiki repository, HEAD on the default branch; an existing one is left as it is. */
export function createGroupWikiRepository(dataDir: string, groupId: number): Promise<string> {
  return initBareRepository(groupWikiRepositoryPath(dataDir, groupId), GROUP_WIKI_DEFAULT_BRANCH);
}

/** Removes groups' wiki repositories; missing ones are fine. */
export async function removeGroupWikiRepositories(dataDir: string, groupIds: readonly number[]): Promise<void> {
  for (const id of groupIds) await rm(groupWikiRepositoryPath(dataDir, id), { recursive: true, force: true });
}

/** Removes snippets' repositories; missing ones are fine. */
export async function removeSnippetRepositories(dataDir: string, snippetIds: readonly number[]): Promise<void> {
  for (const id of snippetIds) await rm(snippetRepositoryPath(dataDir, id), { recursive: true, force: true });
}

/** Points HEAD at refs/heads/<branch>; the branch need not exist yet. */
export async function setRepositoryHead(repository: string, branch: string): Promise<void> {
  await runGit(['--git-dir', repository, 'symbolic-ref', 'HEAD', `refs/heads/${branch}`]);
}

/** Removes the project's repository and wiki; missing ones are fine (a half-created project). */
export async function removeRepository(dataDir: string, projectId: number): Promise<void> {
  await rm(repositoryPath(dataDir, projectId), { recursive: true, force: true });
  await rm(wikiRepositoryPath(dataDir, projectId), { recursive: true, force: true });
  await rm(stagingRepositoryPath(dataDir, projectId), { recursive: true, force: true });
}

/** Bytes on disk under a directory (0 when it does not exist), walked without blocking the loop. */
export async function directorySize(dir: string): Promise<number> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw new Error(`measure ${dir}`, { cause: error });
  }
  let total = 0;
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await directorySize(full);
    else if (entry.isFile()) total += (await lstat(full)).size;
  }
  return total;
}

/** Commits reachable from any ref: 0 for an empty repository. */
export async function countCommits(repository: string): Promise<number> {
  const { stdout } = await runGit(['--git-dir', repository, 'rev-list', '--count', '--all']);
  return Number(stdout.trim()) || 0;
}
