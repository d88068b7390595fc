import { mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { GitError } from './cli.js';
import { git, gitBytes } from './in-repository.js';
import { BLANK_SHA } from './object-names.js';
import { listTree, readBlob } from './tree.js';

/** A file of a commit's tree. */
export interface TreeFile {
  readonly path: string;
  readonly blob: string;
}

/**
 * The branch HEAD names (`master` in a wiki made here), read from the HEAD file as `symbolic-ref`
 * would; null when HEAD is detached or the repository is missing.
 */
export async function headBranch(repository: string): Promise<string | null> {
  const head = await readFile(path.join(repository, 'HEAD'), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return null;
    throw error;
  });
  const ref = head?.startsWith('ref: ') ? head.slice('ref: '.length).trim() : null;
  return ref?.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null;
}

/** Every file (blob) of a commit's tree, at any depth, in git's path order. */
export async function treeFiles(repository: string, commit: string): Promise<TreeFile[]> {
  const entries = (await listTree(repository, commit, '', true)) ?? [];
  return entries.filter((entry) => entry.type === 'blob').map((entry) => ({ path: entry.path, blob: entry.id }));
}

/** Blobs by sha, read at once through the repository's object reader (no git process per read). */
export async function readBlobs(repository: string, shas: readonly string[]): Promise<Map<string, Buffer>> {
  const unique = [...new Set(shas)];
  return new Map(await Promise.all(unique.map(async (sha) => [sha, await readBlob(repository, sha)] as const)));
}

/** One file a commit writes (from bytes, from a file on disk hashed without reading it into memory, or a blob already stored) or removes (`remove`). */
export type FileChange =
  | { readonly path: string; readonly content: Buffer }
  | { readonly path: string; readonly blob: string }
  | { readonly path: string; readonly fromFile: string }
  | { readonly path: string; readonly remove: true };

export interface TreeCommit {
  readonly branch: string;
  /** The commit the change builds on, or null for a first commit. */
  readonly parent: string | null;
  /** What the branch must point at for the update to land (null: it must not exist yet). */
  readonly expected: string | null;
  readonly changes: readonly FileChange[];
  readonly message: string;
  readonly author: { readonly name: string; readonly email: string };
  /** A directory for the temporary index, removed afterwards. */
  readonly scratchRoot: string;
}

/**
 * Writes one commit without a work tree: a temporary index seeded from the parent, the blobs with
 * hash-object, the tree with write-tree, the commit with commit-tree (author and committer the
 * caller), then update-ref from the parent to the new commit, a compare-and-swap: when the branch
 * moved meanwhile (a push, another write) nothing is overwritten and the answer is null.
 */
export async function commitTreeChanges(repository: string, request: TreeCommit): Promise<string | null> {
  const scratch = await mkdtemp(path.join(request.scratchRoot, 'wiki-commit-'));
  const env = { GIT_INDEX_FILE: path.join(scratch, 'index') };
  try {
    if (request.parent) await git(repository, ['read-tree', request.parent], { env });
    const entries: string[] = [];
    for (const change of request.changes) {
      if ('remove' in change) {
        entries.push(`0 ${BLANK_SHA}\t${change.path}`);
        continue;
      }
      const blob =
        'blob' in change
          ? change.blob
          : 'content' in change
          ? (await gitBytes(repository, ['hash-object', '-w', '--no-filters', '--stdin'], change.content)).toString('utf8').trim()
          : (await git(repository, ['hash-object', '-w', '--no-filters', '--', change.fromFile])).stdout.trim();
      entries.push(`100644 ${blob}\t${change.path}`);
    }
    await gitBytes(repository, ['update-index', '-z', '--index-info'], Buffer.from(entries.map((entry) => `${entry}\0`).join('')), { env });
    const tree = (await git(repository, ['write-tree'], { env })).stdout.trim();
    const identity = {
      GIT_AUTHOR_NAME: request.author.name,
      GIT_AUTHOR_EMAIL: request.author.email,
      GIT_COMMITTER_NAME: request.author.name,
      GIT_COMMITTER_EMAIL: request.author.email,
    };
    const parents = request.parent ? ['-p', request.parent] : [];
    const sha = (await git(repository, ['commit-tree', tree, ...parents, '-m', request.message], { env: identity })).stdout.trim();
    try {
      await git(repository, ['update-ref', `refs/heads/${request.branch}`, sha, request.expected ?? BLANK_SHA]);
    } catch (error) {
      if (error instanceof GitError) return null;
      throw error;
    }
    return sha;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
