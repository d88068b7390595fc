import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * Branch heads read from the files git keeps them in (a loose ref, else packed-refs), without a git
 * process: merge requests read two heads on each create, check and accept, and a spawn costs more
 * than the whole read. Only the plain case is answered here; anything else (a reftable repository,
 * a missing repository, a symbolic or unreadable ref, a name git might read another way) answers
 * null, and the caller asks git, so the answer is always the one `git for-each-ref` gives.
 *
 * Reading a loose ref and then packed-refs is safe against git's own writes: a ref is written to a
 * lock file and renamed into place, pack-refs writes packed-refs before it prunes the loose files,
 * and a deletion rewrites packed-refs before it removes the loose file; so each read sees the ref
 * as it was before or after a write, never lost. One difference is left: for-each-ref leaves out a
 * ref whose object is missing (a corrupt repository), which this read returns; the git command that
 * then uses the sha fails as it would on any missing object.
 */

/** Hex object names as loose refs and packed-refs hold them (SHA-1 or SHA-256). */
const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/**
 * Branch names read from files: path components of ordinary characters, none starting with a dot
 * or ending in `.lock` (git refuses those as ref names), so the file read is exactly the ref git would read.
 */
const PLAIN_COMPONENT = /^[A-Za-z0-9_+=,@-][A-Za-z0-9_.+=,@-]*$/;
export const isPlainBranchName = (name: string): boolean =>
  name.length > 0 && name.length <= 200 && name.split('/').every((part) => PLAIN_COMPONENT.test(part) && !part.endsWith('.lock') && !part.includes('..'));

const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException).code;

async function readOrNull(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    // No such ref file (ENOENT), or a directory on its path is a file or the name is a directory: not a loose ref.
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null;
    throw error;
  }
}

/** The packed refs by name (peeled `^` lines and comments skipped). */
function parsePackedRefs(text: string | null): Map<string, string> {
  const refs = new Map<string, string>();
  for (const line of text?.split('\n') ?? []) {
    if (!line || line.startsWith('#') || line.startsWith('^')) continue;
    const space = line.indexOf(' ');
    if (space > 0) refs.set(line.slice(space + 1).trimEnd(), line.slice(0, space));
  }
  return refs;
}

/** packed-refs parsed, by file identity (inode, size, change time in ns): a large one is read once, not per request. */
const packedCache = new Map<string, { key: string; refs: Map<string, string> }>();
const PACKED_CACHE_MAX = 64;

async function packedRefs(repository: string): Promise<Map<string, string>> {
  const file = path.join(repository, 'packed-refs');
  const info = await stat(file, { bigint: true }).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT') return null;
    throw error;
  });
  if (!info) return new Map();
  // git replaces packed-refs by renaming a new file over it, so a change is a new inode or time.
  const key = `${info.ino}:${info.size}:${info.ctimeNs}:${info.mtimeNs}`;
  const cached = packedCache.get(repository);
  if (cached?.key === key) return cached.refs;
  const refs = parsePackedRefs(await readOrNull(file));
  packedCache.delete(repository);
  packedCache.set(repository, { key, refs });
  if (packedCache.size > PACKED_CACHE_MAX) packedCache.delete(packedCache.keys().next().value!);
  return refs;
}

/** The repository's top-level entry names, or null when it is not the plain case (missing, or a reftable repository). */
async function plainRepositoryEntries(repository: string): Promise<Set<string> | null> {
  const entries = await readdir(repository, { withFileTypes: true }).catch(() => null);
  if (!entries?.some((entry) => entry.name === 'HEAD' && entry.isFile()) || entries.some((entry) => entry.name === 'reftable')) return null;
  return new Set(entries.map((entry) => entry.name));
}

/** The object names of these full ref names (`refs/...`; absent when a ref does not exist), or null when any is not the plain case. */
async function refValues(repository: string, refs: readonly string[]): Promise<Map<string, string> | null> {
  const loose = await Promise.all(refs.map((ref) => readOrNull(path.join(repository, ...ref.split('/')))));
  let packed: Map<string, string> | null = null;
  const values = new Map<string, string>();
  for (const [i, ref] of refs.entries()) {
    let value = loose[i]?.trim();
    if (value === undefined) {
      // Read whether or not a loose ref was listed: pack-refs may have moved it since.
      packed ??= await packedRefs(repository);
      value = packed.get(ref);
      if (value === undefined) continue;
    }
    // A symbolic ref (`ref: ...`) or anything else unexpected: git resolves it.
    if (!OBJECT_ID.test(value)) return null;
    values.set(ref, value);
  }
  return values;
}

/**
 * The heads of these branches by name (a branch that does not exist is absent), read from the ref
 * files; null when any of them, or the repository, is not the plain case (then ask git).
 */
export async function branchHeadsFromFiles(repository: string, branches: readonly string[]): Promise<Map<string, string> | null> {
  const names = [...new Set(branches)];
  if (names.length === 0 || !names.every(isPlainBranchName)) return null;
  try {
    if (!(await plainRepositoryEntries(repository))) return null;
    const values = await refValues(repository, names.map((name) => `refs/heads/${name}`));
    return values && new Map([...values].map(([ref, sha]) => [ref.slice('refs/heads/'.length), sha]));
  } catch {
    // An unreadable file (permissions, a racing directory rename): git answers.
    return null;
  }
}

/**
 * Every branch and its head, read from the ref files as `for-each-ref refs/heads/` lists them
 * (loose refs over packed ones); null when any is not the plain case (a lock file of a ref being
 * written, a name git might read another way, a symbolic ref): then ask git. The loose refs are
 * listed before packed-refs is read, so a ref that pack-refs moves or a deletion removes meanwhile
 * is seen once, or not at all, as git's own readers see it. With `limit`, the listing stops once it
 * has that many (whether a repository has a branch asks for one).
 */
export async function allBranchHeadsFromFiles(repository: string, limit = Infinity): Promise<{ name: string; sha: string }[] | null> {
  try {
    if (!(await plainRepositoryEntries(repository))) return null;
    const heads = new Map<string, string>();
    const walk = async (dir: string, prefix: string): Promise<boolean> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch((error: unknown) => {
        if (errorCode(error) === 'ENOENT') return [];
        throw error;
      });
      for (const entry of entries) {
        if (heads.size >= limit) return true;
        const name = prefix + entry.name;
        if (!isPlainBranchName(name)) return false;
        if (entry.isDirectory()) {
          if (!(await walk(path.join(dir, entry.name), `${name}/`))) return false;
          continue;
        }
        const value = (await readOrNull(path.join(dir, entry.name)))?.trim();
        // Deleted since the listing: absent, as for git.
        if (value === undefined) continue;
        if (!OBJECT_ID.test(value)) return false;
        heads.set(name, value);
      }
      return true;
    };
    if (!(await walk(path.join(repository, 'refs', 'heads'), ''))) return null;
    for (const [ref, sha] of heads.size < limit ? await packedRefs(repository) : []) {
      if (heads.size >= limit) break;
      if (!ref.startsWith('refs/heads/')) continue;
      const name = ref.slice('refs/heads/'.length);
      if (!isPlainBranchName(name) || !OBJECT_ID.test(sha)) return null;
      if (!heads.has(name)) heads.set(name, sha);
    }
    return [...heads].map(([name, sha]) => ({ name, sha }));
  } catch {
    return null;
  }
}

/**
 * The object a plain name points at as `git rev-parse` reads it (its dwim rules, in order: the name
 * itself, then under refs/, refs/tags/, refs/heads/, refs/remotes/, and refs/remotes/<name>/HEAD),
 * read from the ref files: null when no ref has the name, undefined when git must answer (HEAD and
 * other names git reads from the repository's top directory, symbolic refs, unusual names, a
 * repository that is not the plain case). The object may be a tag: the caller peels it.
 */
export async function namedRefFromFiles(repository: string, name: string): Promise<string | null | undefined> {
  // A lone `@` is git's shorthand for HEAD.
  if (!isPlainBranchName(name) || name === '@') return undefined;
  try {
    const entries = await plainRepositoryEntries(repository);
    // `HEAD`, `FETCH_HEAD`, `config`, `info/refs`...: git's first rule reads the top directory, and only git knows what it makes of those files.
    if (!entries || (!name.startsWith('refs/') && entries.has(name.split('/')[0]!))) return undefined;
    const candidates = [...(name.startsWith('refs/') ? [name] : []), ...['refs/', 'refs/tags/', 'refs/heads/', 'refs/remotes/'].map((prefix) => prefix + name), `refs/remotes/${name}/HEAD`];
    const values = await refValues(repository, candidates);
    if (!values) return undefined;
    return candidates.map((ref) => values.get(ref)).find((value) => value !== undefined) ?? null;
  } catch {
    return undefined;
  }
}
