import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { runGit } from '../git/cli.js';

/** A byte-order comparison, so both sites sort refs the same whatever their locale. */
const byBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/**
 * The checksum of a repository's refs (issue #6, item 5): sha256 hex over `HEAD <target>\n` (the
 * branch HEAD names, or its sha when detached) then one `<objectname> <refname>\n` per ref,
 * sorted by refname. The primary records it with each blob event; a secondary computes it on its
 * mirror with this same function and re-syncs on a mismatch. Null when the repository does not
 * exist; a git failure rejects (a checksum is never guessed).
 */
export async function refsChecksum(repository: string): Promise<string | null> {
  if (!(await stat(repository).catch(() => null))?.isDirectory()) return null;
  const [refs, head] = await Promise.all([
    runGit(['--git-dir', repository, 'for-each-ref', '--format=%(objectname) %(refname)']),
    headTarget(repository),
  ]);
  const lines = refs.stdout.split('\n').filter(Boolean);
  lines.sort((a, b) => byBytes(a.slice(a.indexOf(' ') + 1), b.slice(b.indexOf(' ') + 1)));
  const hash = createHash('sha256').update(`HEAD ${head}\n`);
  for (const line of lines) hash.update(`${line}\n`);
  return hash.digest('hex');
}

/**
 * The ref HEAD names (unborn included), or the commit a detached HEAD points at, read from the
 * HEAD file (`ref: <name>` or a sha, as git writes it): no git spawn, which dominates the cost of
 * checksumming many small repositories.
 */
async function headTarget(repository: string): Promise<string> {
  const head = (await readFile(path.join(repository, 'HEAD'), 'utf8')).trim();
  return head.startsWith('ref: ') ? head.slice('ref: '.length) : head;
}
