import type { GitStream } from './cli.js';
import { git, gitBytes, gitStream } from './in-repository.js';
import { isFullSha } from './object-names.js';
import { objectInfo, readObject } from './object-reader.js';

/** The entry at exactly `filePath` in a commit's tree (a blob, a tree or a submodule); null when there is none. */
export async function entryAt(repository: string, commit: string, filePath: string): Promise<TreeEntry | null> {
  if (!isFullSha(commit)) {
    const { stdout } = await git(repository, ['ls-tree', '-z', '--full-tree', commit, '--', filePath]);
    return parseTreeRecords(stdout, '').find((entry) => entry.path === filePath) ?? null;
  }
  // Walked one tree object at a time through the object reader: ls-tree lists only normalized
  // paths, so an empty component (`a//b`, a trailing slash) names nothing, as `.` and `..` do.
  const names = filePath.split('/');
  if (names.some((name) => name === '')) return null;
  let tree = await treeOf(repository, `${commit}^{tree}`);
  for (const [i, name] of names.entries()) {
    const entry = parseTreeObject(tree, names.slice(0, i).join('/')).find((candidate) => candidate.name === name);
    if (!entry || i === names.length - 1) return entry ?? null;
    if (entry.type !== 'tree') return null;
    tree = await treeOf(repository, entry.id);
  }
  return null;
}

/** A tree object's bytes (a commit peeled with `^{tree}`); an error when the repository lacks it, as git's. */
async function treeOf(repository: string, name: string): Promise<Buffer> {
  const object = await readObject(repository, name);
  if (object?.type !== 'tree' || !object.data) throw new Error(`git: ${name} is not a tree in ${repository}`);
  return object.data;
}

/** The blob at exactly `filePath` in a commit's tree; null for a missing path or a directory. */
export async function blobAt(repository: string, commit: string, filePath: string): Promise<string | null> {
  const entry = await entryAt(repository, commit, filePath);
  return entry?.type === 'blob' ? entry.id : null;
}

/** A blob's bytes, named by its sha or as `<commit>:<path>`. */
export async function readBlob(repository: string, blob: string): Promise<Buffer> {
  if (!isFullSha(blob)) return gitBytes(repository, ['cat-file', 'blob', blob]);
  const object = await readObject(repository, blob);
  if (object?.type !== 'blob' || !object.data) throw new Error(`git: ${blob} is not a blob in ${repository}`);
  return object.data;
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
 * The entries of a tree object in its order, as `git ls-tree` lists them: modes made canonical as
 * git does when it reads a tree (so `100664` lists as `100644`), six digits, names as UTF-8.
 */
function parseTreeObject(data: Buffer, prefix: string): TreeEntry[] {
  const entries: TreeEntry[] = [];
  // SHA-1 trees hold 20-byte ids; the reader is only given SHA-1 names (isFullSha).
  const ID_BYTES = 20;
  for (let at = 0; at < data.length; ) {
    const space = data.indexOf(32, at);
    const nul = data.indexOf(0, space);
    if (space < 0 || nul < 0 || nul + 1 + ID_BYTES > data.length) throw new Error('git: a tree object is malformed');
    const mode = canonicalMode(parseInt(data.toString('latin1', at, space), 8));
    const name = data.toString('utf8', space + 1, nul);
    const id = data.toString('hex', nul + 1, nul + 1 + ID_BYTES);
    at = nul + 1 + ID_BYTES;
    const type = mode === 0o40000 ? 'tree' : mode === 0o160000 ? 'commit' : 'blob';
    entries.push({ id, name, type, path: prefix ? `${prefix}/${name}` : name, mode: mode.toString(8).padStart(6, '0') });
  }
  return entries;
}

/** git's canon_mode: regular files 100644 or 100755 by the owner's execute bit, symlinks, trees, and anything else a gitlink. */
function canonicalMode(mode: number): number {
  const type = mode & 0o170000;
  if (type === 0o100000) return mode & 0o100 ? 0o100755 : 0o100644;
  if (type === 0o120000 || type === 0o40000) return type;
  return 0o160000;
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
  if (isFullSha(tree)) {
    const entries = parseTreeObject(await treeOf(repository, tree === commit ? `${commit}^{tree}` : tree), dir);
    return recursive ? withSubtrees(repository, entries) : entries;
  }
  const { stdout } = await git(repository, ['ls-tree', '-z', ...(recursive ? ['-r', '-t'] : []), tree]);
  return parseTreeRecords(stdout, dir);
}

/** Each tree entry followed by its own entries, at any depth, as `ls-tree -r -t` lists them; the subtrees read at once. */
async function withSubtrees(repository: string, entries: TreeEntry[]): Promise<TreeEntry[]> {
  const below = await Promise.all(
    entries.map(async (entry) => (entry.type === 'tree' ? withSubtrees(repository, parseTreeObject(await treeOf(repository, entry.id), entry.path)) : [])),
  );
  return entries.flatMap((entry, i) => [entry, ...below[i]!]);
}

/** A blob's full id and size, from a full or abbreviated hex id; null when it names no blob. */
export async function findBlob(repository: string, sha: string): Promise<{ id: string; size: number } | null> {
  if (!/^[0-9a-f]{4,40}$/i.test(sha)) return null;
  if (isFullSha(sha.toLowerCase())) {
    const object = await objectInfo(repository, sha.toLowerCase());
    return object?.type === 'blob' ? { id: object.id, size: object.size } : null;
  }
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
