import { readdir } from 'node:fs/promises';

/** What a snapshot of a bare repository holds, as Gitaly's GetSnapshot: its HEAD, refs and objects; not its config or hooks. */
const SNAPSHOT_ENTRIES = ['HEAD', 'packed-refs', 'shallow', 'refs', 'objects'];

/**
 * A tar of the repository's git data, streamed from disk with async reads (GitLab's "possibly
 * inconsistent" snapshot: a push during it may leave it torn); null when no repository is there.
 */
export async function snapshotStream(repository: string): Promise<NodeJS.ReadableStream | null> {
  const present = await readdir(repository).catch(() => null);
  if (!present?.includes('HEAD')) return null;
  const { pack } = await import('tar-fs');
  // tar-fs 3 packs into a streamx stream, which node's pipeline takes as a readable (its typings still describe tar-fs 2's).
  return pack(repository, { entries: SNAPSHOT_ENTRIES.filter((name) => present.includes(name)) }) as unknown as NodeJS.ReadableStream;
}
