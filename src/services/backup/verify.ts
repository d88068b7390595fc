import { stat } from 'node:fs/promises';
import type { BlobKind } from '../../storage/blob-store.js';
import type { BlobStores } from '../../storage/blob-stores.js';
import { hashFile, inside, readManifest, type BackupManifest } from './manifest.js';

export interface VerifyReport {
  readonly manifest: BackupManifest;
  /** One line per problem: a file missing, of another size, or with another sha256. Empty when the backup is whole. */
  readonly problems: string[];
  readonly files: number;
  readonly bytes: number;
}

/**
 * Checks every file the manifest lists: present, same size, same sha256; and, given the site's
 * stores, that every blob it records in an object store still exists there with its size.
 */
export async function verifyBackup(dir: string, stores: BlobStores | null = null): Promise<VerifyReport> {
  const manifest = await readManifest(dir);
  const problems: string[] = [];
  let bytes = 0;
  for (const entry of manifest.entries) {
    const file = inside(dir, entry.path);
    const found = await stat(file).catch(() => null);
    if (!found?.isFile()) {
      problems.push(`${entry.path}: missing`);
      continue;
    }
    if (found.size !== entry.size) {
      problems.push(`${entry.path}: size ${found.size}, manifest says ${entry.size}`);
      continue;
    }
    const { sha256 } = await hashFile(file);
    if (sha256 !== entry.sha256) problems.push(`${entry.path}: sha256 ${sha256}, manifest says ${entry.sha256}`);
    bytes += found.size;
  }
  const listed = new Set(manifest.entries.map((entry) => entry.path));
  for (const needed of [manifest.database.path, ...manifest.files.map((file) => file.path), ...manifest.repositories.flatMap((repo) => (repo.bundle ? [repo.bundle] : []))]) {
    if (!listed.has(needed)) problems.push(`${needed}: not in the manifest's entries`);
  }
  for (const stored of manifest.object_stored ?? []) {
    if (!stores || stores.of(stored.kind as BlobKind)?.store.location !== 'object') {
      problems.push(`${stored.kind}: ${stored.blobs.length} blobs in bucket ${stored.bucket} at ${stored.endpoint} not checked (no object store configured for ${stored.kind})`);
      continue;
    }
    const { store } = stores.of(stored.kind as BlobKind);
    for (const blob of stored.blobs) {
      const found = await store.head(blob.key);
      if (!found) problems.push(`${blob.key}: missing from bucket ${stored.bucket}`);
      else if (found.size !== blob.size) problems.push(`${blob.key}: size ${found.size} in bucket ${stored.bucket}, manifest says ${blob.size}`);
    }
  }
  return { manifest, problems, files: manifest.entries.length, bytes };
}
