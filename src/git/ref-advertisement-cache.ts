import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Upload-pack ref advertisements answered without spawning git when the repository's refs have not
 * changed since git last wrote one. An advertisement is a function of what git reads for it: HEAD,
 * packed-refs, the loose refs, the shallow file and the configuration (hidden refs, capabilities)
 * — objects never change under a sha, so peeled tags follow from the refs. The state of those files
 * is read in-process (a handful of small reads, no process) and kept as a digest beside the bytes
 * git wrote; a request whose state matches is answered from memory. Every clone and fetch starts
 * with this GET, so under clone load it saves one git process per clone.
 */

/** Repositories (per protocol request) whose advertisement is kept, least recently used dropped first. */
const MAX_ENTRIES = 1024;
/** What all kept advertisements may hold together: a bound on memory whatever the repositories' sizes. */
const MAX_TOTAL_BYTES = 16 * 1024 * 1024;
/** An advertisement larger than this (thousands of refs) is streamed and never kept. */
export const MAX_CACHED_BYTES = 256 * 1024;

interface Entry {
  readonly state: string;
  readonly bytes: Buffer;
}

const entries = new Map<string, Entry>();
let totalBytes = 0;

function drop(key: string): void {
  const entry = entries.get(key);
  if (!entry) return;
  entries.delete(key);
  totalBytes -= entry.bytes.length;
}

const readOrEmpty = async (file: string): Promise<Buffer> => {
  try {
    return await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
    throw error;
  }
};

/** Every loose ref file under `dir`, with its path, in a stable order. */
async function looseRefs(root: string, dir: string, hash: ReturnType<typeof createHash>): Promise<void> {
  let names;
  try {
    names = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of names) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await looseRefs(root, full, hash);
    else if (entry.isFile() && !entry.name.endsWith('.lock')) hash.update(`${path.relative(root, full)}\0`).update(await readOrEmpty(full)).update('\0');
  }
}

/**
 * A digest of everything an upload-pack advertisement depends on, read in-process; null when the
 * state cannot be read (the caller then asks git, uncached). Lock files are left out: they are a
 * write in progress, and the ref they guard is read as it still is.
 */
export async function refsState(repository: string): Promise<string | null> {
  try {
    const hash = createHash('sha256');
    for (const file of ['HEAD', 'packed-refs', 'shallow', 'config']) hash.update(`${file}\0`).update(await readOrEmpty(path.join(repository, file))).update('\0');
    await looseRefs(repository, path.join(repository, 'refs'), hash);
    return hash.digest('hex');
  } catch {
    // An unreadable file (permissions, a racing rename of a directory) only costs the cache: git answers.
    return null;
  }
}

/** The kept advertisement for this repository and protocol request when the refs state is still `state`. */
export function cachedAdvertisement(key: string, state: string): Buffer | null {
  const entry = entries.get(key);
  if (!entry || entry.state !== state) return null;
  // Most recently used last, so eviction takes the oldest first.
  entries.delete(key);
  entries.set(key, entry);
  return entry.bytes;
}

/** Keeps an advertisement git wrote while the refs state was `state` (read before and after it ran). */
export function keepAdvertisement(key: string, state: string, bytes: Buffer): void {
  if (bytes.length > MAX_CACHED_BYTES) return;
  drop(key);
  entries.set(key, { state, bytes });
  totalBytes += bytes.length;
  while (entries.size > MAX_ENTRIES || totalBytes > MAX_TOTAL_BYTES) drop(entries.keys().next().value!);
}
