import type { GitStream } from './cli.js';
import { git, gitBytes, gitStream } from './in-repository.js';

/** The entry at exactly `filePath` in a commit's tree (a blob, a tree or a submodule); null when there is none. */
export async function entryAt(repository: string, commit: string, filePath: string): Promise<TreeEntry | null> {
  const { stdout } = await git(repository, ['ls-tree', '-z', '--full-tree', commit, '--', filePath]);
  return parseTreeRecords(stdout, '').find((entry) => entry.path === filePath) ?? null;
}

/** The blob at exactly `filePath` in a commit's tree; null for a missing path or a directory. */
export async function blobAt(repository: string, commit: string, filePath: string): Promise<string | null> {
  const entry = await entryAt(repository, commit, filePath);
  return entry?.type === 'blob' ? entry.id : null;
}

/** A blob's bytes, named by its sha or as `<commit>:<path>`. */
export function readBlob(repository: string, blob: string): Promise<Buffer> {
  return gitBytes(repository, ['cat-file', 'blob', blob]);
}

/** One entry of a tree as `git ls-tree` lists it; `path` is the full path from the repository's root. */
export interface TreeEntry {
  readonly id: string;
  readonly name: string;
  readonly type: 'tree' | 'blob' | 'commit';
  readonly path: string;
  readonly mode: string;
}

/** The `-z` records of `git ls-tree` (`<mode> <type> <sha>\t<path>`), paths under `prefix`. */
function parseTreeRecords(stdout: string, prefix: string): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (const record of stdout.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    const [mode, type, id] = record.slice(0, tab).split(' ');
    const relative = record.slice(tab + 1);
    const name = relative.slice(relative.lastIndexOf('/') + 1);
    entries.push({ id: id!, name, type: type as TreeEntry['type'], path: prefix ? `${prefix}/${relative}` : relative, mode: mode! });
  }
  return entries;
}

/**
 * The entries of the tree at `dir` ('' for the root) of a commit, the whole subtree when
 * `recursive`, in git's order; null when no tree is at `dir` (a missing path, or a file).
 */
export async function listTree(repository: string, commit: string, dir: string, recursive: boolean): Promise<TreeEntry[] | null> {
  let tree = commit;
  if (dir) {
    const own = await entryAt(repository, commit, dir);
    if (own?.type !== 'tree') return null;
    tree = own.id;
  }
  const { stdout } = await git(repository, ['ls-tree', '-z', ...(recursive ? ['-r', '-t'] : []), tree]);
  return parseTreeRecords(stdout, dir);
}

/** A blob's full id and size, from a full or abbreviated hex id; null when it names no blob. */
export async function findBlob(repository: string, sha: string): Promise<{ id: string; size: number } | null> {
  if (!/^[0-9a-f]{4,40}$/i.test(sha)) return null;
  const out = (await gitBytes(repository, ['cat-file', '--batch-check'], Buffer.from(`${sha.toLowerCase()}\n`))).toString('utf8').trim();
  // "<id> blob <size>" for a blob; "<sha> missing" or "<sha> ambiguous" otherwise.
  const [id, type, size] = out.split(' ');
  return type === 'blob' && id && size ? { id, size: Number(size) } : null;
}

/** A blob's bytes as a stream, for a download too large to hold. */
export function streamBlob(repository: string, blobId: string): GitStream {
  const child = gitStream(repository, ['cat-file', 'blob', blobId]);
  child.stdin.end();
  return child;
}
