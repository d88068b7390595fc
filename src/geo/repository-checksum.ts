import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { hasRepository } from '../git/in-repository.js';

/** A byte-order comparison, so both sites sort refs the same whatever their locale. */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
/** How deep a symbolic ref may point through others before it counts as broken (git's own limit is 5). */
const MAX_SYMREF_DEPTH = 5;

/**
 * The checksum of a repository's refs (issue #6, item 5): sha256 hex over `HEAD <target>\n` (the
 * branch HEAD names, or its sha when detached) then one `<objectname> <refname>\n` per ref,
 * sorted by refname. The primary records it with each blob event; a secondary computes it on its
 * mirror with this same function and re-syncs on a mismatch. Null when the repository does not
 * exist; a repository git could not read rejects. Refs are read from the files git keeps them in, without spawning git: a spawn costs
 * more than the whole read and dominated the sync of many small repositories.
 */
export async function refsChecksum(repository: string): Promise<string | null> {
  if (!(await hasRepository(repository))) return null;
  const [refs, head] = await Promise.all([readRefs(repository), readHeadTarget(repository)]);
  const hash = createHash('sha256').update(`HEAD ${head}\n`);
  for (const name of [...refs.keys()].sort(byBytes)) hash.update(`${refs.get(name)} ${name}\n`);
  return hash.digest('hex');
}

/**
 * Every ref under refs/ with the object it names, as `git for-each-ref` lists them: packed refs,
 * overridden by loose ones, symbolic refs resolved, broken ones (and lock files) left out.
 */
async function readRefs(repository: string): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  const packed = await readFile(path.join(repository, 'packed-refs'), 'utf8').catch(ignoreMissing);
  for (const line of packed?.split('\n') ?? []) {
    if (!line || line.startsWith('#') || line.startsWith('^')) continue;
    const space = line.indexOf(' ');
    if (space > 0) values.set(line.slice(space + 1), line.slice(0, space));
  }
  await readLooseRefs(repository, 'refs', values);
  const refs = new Map<string, string>();
  for (const name of values.keys()) {
    const objectId = resolve(values, name);
    if (objectId) refs.set(name, objectId);
  }
  return refs;
}

/**
 * Reads the loose refs of a directory all at once: a repository whose refs were never packed
 * (every merge request adds its own) holds hundreds, and one read after the other made the
 * checksum of each push and merge wait tens of milliseconds.
 */
async function readLooseRefs(repository: string, prefix: string, values: Map<string, string>): Promise<void> {
  const entries = await readdir(path.join(repository, prefix), { withFileTypes: true }).catch(ignoreMissing);
  await Promise.all(
    (entries ?? []).map(async (entry) => {
      const name = `${prefix}/${entry.name}`;
      if (entry.isDirectory()) return readLooseRefs(repository, name, values);
      if (!entry.isFile() || entry.name.endsWith('.lock')) return;
      const content = await readFile(path.join(repository, name), 'utf8').catch(ignoreMissing);
      if (content !== null) values.set(name, content.trim());
    }),
  );
}

/** The object a ref names, following `ref: <name>` links; null for a broken or dangling ref. */
function resolve(values: Map<string, string>, name: string): string | null {
  let value = values.get(name);
  for (let depth = 0; value !== undefined && depth <= MAX_SYMREF_DEPTH; depth++) {
    if (OBJECT_ID.test(value)) return value;
    if (!value.startsWith('ref: ')) return null;
    value = values.get(value.slice('ref: '.length));
  }
  return null;
}

/**
 * The ref HEAD names (unborn included), or the commit a detached HEAD points at, read from the
 * HEAD file. Anything else is no repository git could read: an error, never a checksum. The
 * primary serves it to secondaries (api/geo/git-fetch.ts): no ref carries it, and an empty
 * repository has nothing else to tell its HEAD.
 */
export async function readHeadTarget(repository: string): Promise<string> {
  const head = (await readFile(path.join(repository, 'HEAD'), 'utf8')).trim();
  if (head.startsWith('ref: refs/')) return head.slice('ref: '.length);
  if (OBJECT_ID.test(head)) return head;
  throw new Error(`${repository}: HEAD is neither a ref nor an object id`);
}

/** A file or directory that is not there (or went between listing and reading: a concurrent ref update) reads as absent. */
function ignoreMissing(error: NodeJS.ErrnoException): null {
  if (error.code === 'ENOENT') return null;
  throw error;
}
