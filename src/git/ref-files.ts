import { readdir, readFile } from 'node:fs/promises';
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
const isPlainBranchName = (name: string): boolean =>
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

/**
 * The heads of these branches by name (a branch that does not exist is absent), read from the ref
 * files; null when any of them, or the repository, is not the plain case (then ask git).
 */
export async function branchHeadsFromFiles(repository: string, branches: readonly string[]): Promise<Map<string, string> | null> {
  const names = [...new Set(branches)];
  if (names.length === 0 || !names.every(isPlainBranchName)) return null;
  try {
    // One listing of the repository: a repository that is not there, or keeps its refs in a
    // reftable, is git's to answer. packed-refs is read only when a loose ref is missing, and then
    // whether or not it was listed: pack-refs may have written it since.
    const entries = await readdir(repository, { withFileTypes: true }).catch(() => null);
    if (!entries?.some((entry) => entry.name === 'HEAD' && entry.isFile()) || entries.some((entry) => entry.name === 'reftable')) return null;
    const loose = await Promise.all(names.map((name) => readOrNull(path.join(repository, 'refs', 'heads', ...name.split('/')))));
    let packed: Map<string, string> | null = null;
    const heads = new Map<string, string>();
    for (const [i, name] of names.entries()) {
      let value = loose[i]?.trim();
      if (value === undefined) {
        packed ??= parsePackedRefs(await readOrNull(path.join(repository, 'packed-refs')));
        value = packed.get(`refs/heads/${name}`);
        if (value === undefined) continue;
      }
      // A symbolic ref (`ref: ...`) or anything else unexpected: git resolves it.
      if (!OBJECT_ID.test(value)) return null;
      heads.set(name, value);
    }
    return heads;
  } catch {
    // An unreadable file (permissions, a racing directory rename): git answers.
    return null;
  }
}
