import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { BlobStores } from '../../storage/blob-stores.js';
import { isGitBlobType, safeBlobPath } from '../blobs.js';
import type { RegistryItem } from '../registry/queue.js';

/** Where an item's copy lives on this site; a registry path that could leave its root is refused. */
export function localCopyPath(dataDir: string, item: Pick<RegistryItem, 'item_type' | 'path'>): string {
  const relative = safeBlobPath(item.item_type, item.path);
  if (relative === null) throw new Error(`registry path ${JSON.stringify(item.path)} is not a ${item.item_type} path`);
  return path.join(dataDir, relative);
}

/** Beside the final repository path (one filesystem, so the rename is atomic); never a path anything else reads. */
export const repositoryStagingPath = (local: string): string => `${local}.geo-staging`;

/** Removes an item's copy (and a repository's staging leftovers) from its disk or store; a copy already gone is fine. Empty parent directories stay. */
export async function removeLocalCopy(dataDir: string, blobs: BlobStores, item: RegistryItem): Promise<void> {
  const local = localCopyPath(dataDir, item);
  if (isGitBlobType(item.item_type)) {
    await rm(local, { recursive: true, force: true });
    await rm(repositoryStagingPath(local), { recursive: true, force: true });
  } else {
    await blobs.remove(safeBlobPath(item.item_type, item.path)!);
  }
}
