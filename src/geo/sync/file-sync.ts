import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { prepare } from '../../db/connection.js';
import { CopyLimitError, copyWithDigest } from '../../storage/durable-copy.js';
import { PrimaryError, type TransferType } from '../agent/primary-client.js';
import type { RegistryItem } from '../registry/queue.js';
import type { SyncDeps } from './deps.js';
import { SyncFailure } from './failure.js';
import { localCopyPath } from './local-copy.js';

type FileType = 'lfs_object' | 'job_artifact' | 'attachment';

const TRANSFER_TYPE: Readonly<Record<FileType, TransferType>> = { lfs_object: 'lfs', job_artifact: 'job_artifact', attachment: 'attachment' };

/** The sha256 and size the replicated row records for a file (an LFS object's oid is its sha256). */
const ROW_SQL: Readonly<Record<FileType, string>> = {
  lfs_object: 'SELECT oid AS sha256, size FROM lfs_objects WHERE id = ?',
  job_artifact: 'SELECT sha256, size FROM ci_job_artifacts WHERE id = ?',
  attachment: 'SELECT sha256, size FROM uploads WHERE id = ?',
};

/**
 * Downloads a file from the primary to a temporary name beside its target, hashing as it writes,
 * and renames it into place (flushed) only when its sha256 and size equal the replicated row's and
 * the primary's X-Geo-Sha256: a wrong copy is never in place, never synced. Resolves with the sha256.
 */
export async function syncFile(item: RegistryItem, deps: SyncDeps): Promise<string> {
  const type = item.item_type as FileType;
  const row = prepare(deps.db(), ROW_SQL[type]).get(item.item_id) as { sha256: string; size: number } | undefined;
  if (!row) throw new Error(`${type} ${item.item_id} is not in the replicated database (deleted on the primary?)`);
  const target = localCopyPath(deps.dataDir, item);
  // One name per item: a sync runs once per item at a time, and the next attempt overwrites what a crash left.
  const temporary = path.join(path.dirname(target), `.geo-tmp-${path.basename(target)}`);
  let placed = false;
  try {
    // The directories are made while the primary answers: a fresh copy's two fan-out levels cost as much as the wait.
    const [made, answered] = await Promise.allSettled([mkdir(path.dirname(target), { recursive: true }), deps.client.transfer(TRANSFER_TYPE[type], item.item_id, row.size, deps.signal)]);
    if (answered.status === 'rejected') {
      const error: unknown = answered.reason;
      if (error instanceof PrimaryError && error.status === 404) {
        throw new SyncFailure('sync', `the ${type.replace('_', ' ')} is missing on the primary: ${error.message}`, true, { cause: error });
      }
      throw error;
    }
    const transfer = answered.value;
    if (made.status === 'rejected') {
      transfer.discard();
      throw made.reason;
    }
    if (transfer.sha256 !== row.sha256) {
      transfer.discard();
      throw new SyncFailure('checksum_mismatch', `the primary sent X-Geo-Sha256 ${transfer.sha256}, the replicated row records ${row.sha256}`);
    }
    if (transfer.size !== null && transfer.size !== row.size) {
      transfer.discard();
      throw new SyncFailure('checksum_mismatch', `the primary offers ${transfer.size} bytes, the replicated row records ${row.size}`);
    }
    const copy = await copyWithDigest(transfer.body, temporary, { overwrite: true, maxBytes: row.size }).catch((error: unknown) => {
      if (error instanceof CopyLimitError) throw new SyncFailure('checksum_mismatch', `the primary sent more than the ${row.size} bytes the replicated row records`);
      throw error;
    });
    if (copy.sha256 !== row.sha256 || copy.size !== row.size) {
      throw new SyncFailure('checksum_mismatch', `downloaded ${copy.size} bytes with sha256 ${copy.sha256}, expected ${row.size} bytes with sha256 ${row.sha256}`);
    }
    await rename(temporary, target);
    placed = true;
    return copy.sha256;
  } finally {
    if (!placed) await rm(temporary, { force: true });
  }
}
