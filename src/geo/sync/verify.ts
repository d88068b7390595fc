import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { Db } from '../../db/connection.js';
import type { RegistryItem } from '../registry/queue.js';
import type { RetryPolicy } from '../../backoff.js';
import { itemsDueForVerification, markVerificationFailed, markVerified } from '../registry/verification.js';
import { refsChecksum } from '../repository-checksum.js';
import { localCopyPath } from './local-copy.js';

export interface VerifyDeps {
  readonly dataDir: string;
  readonly db: () => Db;
  readonly retry: RetryPolicy;
  /** A synced item is verified again once its last verification is this old. */
  readonly maxAgeMs: number;
  readonly batch: number;
}

/**
 * Re-verifies a small batch of synced items whose verification is oldest: a repository's refs
 * checksum, a file's sha256, each against what the sync recorded. A missing or changed copy
 * fails with failure_type verification, and the workers fetch it again.
 */
export async function reverifyBatch(deps: VerifyDeps, now = Date.now()): Promise<{ verified: number; failed: number }> {
  let failed = 0;
  const items = itemsDueForVerification(deps.db(), now - deps.maxAgeMs, deps.batch);
  for (const item of items) {
    const problem = await checkLocalCopy(deps.dataDir, item);
    if (problem === null) markVerified(deps.db(), item, Date.now());
    else if (markVerificationFailed(deps.db(), item, problem, Date.now(), deps.retry)) failed++;
  }
  return { verified: items.length - failed, failed };
}

/** Null when the local copy still matches the recorded checksum; otherwise what is wrong, in words. */
async function checkLocalCopy(dataDir: string, item: RegistryItem): Promise<string | null> {
  const local = localCopyPath(dataDir, item);
  const actual = item.item_type === 'repository' || item.item_type === 'wiki' ? await refsChecksum(local) : await fileSha256(local);
  if (actual === null) return `verification: the local copy at ${item.path} is missing`;
  return actual === item.checksum ? null : `verification: the local copy's checksum ${actual} differs from the synced ${item.checksum}`;
}

async function fileSha256(file: string): Promise<string | null> {
  const hash = createHash('sha256');
  try {
    await pipeline(createReadStream(file), hash);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return hash.digest('hex');
}
