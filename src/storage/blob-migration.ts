import { BLOB_KIND_DIRS, type BlobKind, type BlobStore, type OpenedBlob } from './blob-store.js';
import type { BlobStores } from './blob-stores.js';

/** Where blobs that are not the kind's own live under its folder: avatars stay on the disk (uploads/-/system), LFS's old scratch folder. */
const NOT_MIGRATED = ['uploads/-/', 'lfs-objects/tmp/'];

/** A readable of an opened blob, whichever store it came from. */
function chunksOf(blob: OpenedBlob): AsyncIterable<Buffer> {
  return blob.type === 'file' ? blob.handle.createReadStream({ highWaterMark: 1024 * 1024, autoClose: true }) : blob.stream;
}

export interface MigrationCounts {
  readonly total: number;
  moved: number;
  failed: number;
  bytes: number;
}

/**
 * Moves every blob of a kind between the local disk and its object store (`geoforge storage
 * migrate`). Each blob is copied, the copy's streamed sha256 compared with the source's, and only
 * then the source removed: a run cut off anywhere leaves every blob readable (BlobStores reads
 * the kind's store, then the disk), and the next run moves what is left. Reports each blob as it goes.
 */
export async function migrateBlobs(
  blobs: BlobStores,
  kind: BlobKind,
  to: 'object' | 'local',
  onProgress: (counts: MigrationCounts, key: string, error?: unknown) => void,
): Promise<MigrationCounts> {
  const { store, other } = blobs.of(kind);
  if (store.location !== 'object') throw new Error(`the ${kind} blobs have no object store configured (objectStores.${kind})`);
  const [source, target]: [BlobStore, BlobStore] = to === 'object' ? [other, store] : [store, other];
  const keys: { key: string; size: number }[] = [];
  for await (const blob of source.list(BLOB_KIND_DIRS[kind])) {
    if (!NOT_MIGRATED.some((prefix) => blob.key.startsWith(prefix))) keys.push(blob);
  }
  const counts: MigrationCounts = { total: keys.length, moved: 0, failed: 0, bytes: 0 };
  for (const { key, size } of keys) {
    try {
      const opened = await source.open(key);
      // Gone since the listing (deleted, or moved by a run beside this one): nothing to move.
      if (opened) {
        const copied = await target.put(key, chunksOf(opened), { size: opened.size });
        const check = await target.digest(key);
        if (check?.sha256 !== copied.sha256 || check.size !== copied.size) throw new Error(`the copy of ${key} reads back as ${check?.sha256 ?? 'missing'}, not ${copied.sha256}`);
        await source.remove(key);
      }
      counts.moved++;
      counts.bytes += size;
      onProgress(counts, key);
    } catch (error) {
      counts.failed++;
      onProgress(counts, key, error);
    }
  }
  return counts;
}
