import { createHash } from 'node:crypto';
import { lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { runGit } from './cli.js';

/**
 * GitLab's hashed storage: the directory derives from the project id only, so renames and
 * transfers never move a repository (DESIGN: repositories/<hashed>/).
 */
function hashedStoragePath(projectId: number): string {
  const hash = createHash('sha256').update(String(projectId)).digest('hex');
  return path.join('@hashed', hash.slice(0, 2), hash.slice(2, 4), hash);
}

/** The project's bare repository: DATA_DIR/repositories/@hashed/aa/bb/<sha256(id)>.git */
export function repositoryPath(dataDir: string, projectId: number): string {
  return path.join(dataDir, 'repositories', `${hashedStoragePath(projectId)}.git`);
}

/** The project's wiki repository, beside the main one. */
export function wikiRepositoryPath(dataDir: string, projectId: number): string {
  return path.join(dataDir, 'repositories', `${hashedStoragePath(projectId)}.wiki.git`);
}

/** Creates an empty bare repository whose HEAD names the default branch (which has no commit yet). */
export async function createBareRepository(dataDir: string, projectId: number, defaultBranch: string): Promise<string> {
  const target = repositoryPath(dataDir, projectId);
  await runGit(['init', '--bare', '--quiet', target]);
  await setRepositoryHead(target, defaultBranch);
  return target;
}

/** Points HEAD at refs/heads/<branch>; the branch need not exist yet. */
export async function setRepositoryHead(repository: string, branch: string): Promise<void> {
  await runGit(['--git-dir', repository, 'symbolic-ref', 'HEAD', `refs/heads/${branch}`]);
}

/** Removes the project's repository and wiki; missing ones are fine (a half-created project). */
export async function removeRepository(dataDir: string, projectId: number): Promise<void> {
  await rm(repositoryPath(dataDir, projectId), { recursive: true, force: true });
  await rm(wikiRepositoryPath(dataDir, projectId), { recursive: true, force: true });
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
