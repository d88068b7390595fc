import { git, gitBytes } from './in-repository.js';

/** The blob at exactly `filePath` in a commit's tree; null for a missing path or a directory. */
export async function blobAt(repository: string, commit: string, filePath: string): Promise<string | null> {
  const { stdout } = await git(repository, ['ls-tree', '-z', '--full-tree', commit, '--', filePath]);
  for (const record of stdout.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0 || record.slice(tab + 1) !== filePath) continue;
    const [, type, sha] = record.slice(0, tab).split(' ');
    if (type === 'blob') return sha!;
  }
  return null;
}

/** A blob's bytes, named by its sha or as `<commit>:<path>`. */
export function readBlob(repository: string, blob: string): Promise<Buffer> {
  return gitBytes(repository, ['cat-file', 'blob', blob]);
}
