import { prepare } from '../../db/connection.js';
import { BlobMismatchError } from '../../storage/blob-store.js';
import { PrimaryError, type TransferType } from '../agent/primary-client.js';
import { safeBlobPath } from '../blobs.js';
import type { RegistryItem } from '../registry/queue.js';
import type { SyncDeps } from './deps.js';
import { SyncFailure } from './failure.js';

type FileType = 'lfs_object' | 'job_artifact' | 'attachment';

const TRANSFER_TYPE: Readonly<Record<FileType, TransferType>> = { lfs_object: 'lfs', job_artifact: 'job_artifact', attachment: 'attachment' };

/** The sha256 and size the replicated row records for a file (an LFS object's oid is its sha256). */
const ROW_SQL: Readonly<Record<FileType, string>> = {
  lfs_object: 'SELECT oid AS sha256, size FROM lfs_objects WHERE id = ?',
  job_artifact: 'SELECT sha256, size FROM ci_job_artifacts WHERE id = ?',
  attachment: 'SELECT sha256, size FROM uploads WHERE id = ?',
};

/**
 * Streams a file from the primary into this site's store for its kind (its disk or its own
 * bucket), hashing as it writes; the copy becomes visible only when its sha256 and size equal the
 * replicated row's and the primary's X-Geo-Sha256: a wrong copy is never in place, never synced.
 * Resolves with the sha256.
 */
export async function syncFile(item: RegistryItem, deps: SyncDeps): Promise<string> {
  const type = item.item_type as FileType;
  const row = prepare(deps.db(), ROW_SQL[type]).get(item.item_id) as { sha256: string; size: number } | undefined;
  if (!row) throw new Error(`${type} ${item.item_id} is not in the replicated database (deleted on the primary?)`);
  const key = safeBlobPath(item.item_type, item.path);
  if (key === null) throw new Error(`registry path ${JSON.stringify(item.path)} is not a ${item.item_type} path`);
  let transfer;
  try {
    transfer = await deps.client.transfer(TRANSFER_TYPE[type], item.item_id, row.size, deps.signal);
  } catch (error) {
    if (error instanceof PrimaryError && error.status === 404) {
      throw new SyncFailure('sync', `the ${type.replace('_', ' ')} is missing on the primary: ${error.message}`, true, { cause: error });
    }
    throw error;
  }
  if (transfer.sha256 !== row.sha256) {
    transfer.discard();
    throw new SyncFailure('checksum_mismatch', `the primary sent X-Geo-Sha256 ${transfer.sha256}, the replicated row records ${row.sha256}`);
  }
  if (transfer.size !== null && transfer.size !== row.size) {
    transfer.discard();
    throw new SyncFailure('checksum_mismatch', `the primary offers ${transfer.size} bytes, the replicated row records ${row.size}`);
  }
  try {
    return (await deps.blobs.put(key, transfer.body, { sha256: row.sha256, size: row.size, maxBytes: row.size })).sha256;
  } catch (error) {
    if (!(error instanceof BlobMismatchError)) throw error;
    if (error.reason === 'too_long') throw new SyncFailure('checksum_mismatch', `the primary sent more than the ${row.size} bytes the replicated row records`);
    throw new SyncFailure('checksum_mismatch', `downloaded ${error.got?.size} bytes with sha256 ${error.got?.sha256}, expected ${row.size} bytes with sha256 ${row.sha256}`);
  }
}
