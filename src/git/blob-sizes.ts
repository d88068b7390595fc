import { git } from './in-repository.js';

/** Every blob of a commit's tree with its size in bytes (`git ls-tree -r -l`): one git call, no blob read. */
export async function blobSizes(repository: string, commit: string): Promise<{ path: string; size: number }[]> {
  const { stdout } = await git(repository, ['ls-tree', '-r', '-l', '-z', '--full-tree', commit], { maxOutputBytes: 256 * 1024 * 1024 });
  const out: { path: string; size: number }[] = [];
  for (const record of stdout.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0) continue;
    // `<mode> <type> <sha> <padded size>`; submodules (commit) and symlinks count as nothing.
    const [mode, type, , size] = record.slice(0, tab).split(/ +/);
    if (type !== 'blob' || mode === '120000') continue;
    out.push({ path: record.slice(tab + 1), size: Number(size) || 0 });
  }
  return out;
}
