import type { Db } from '../../db/connection.js';
import type { BlobStores } from '../../storage/blob-stores.js';
import type { RegistryItem } from '../registry/queue.js';
import { isGitBlobType, safeBlobPath } from '../blobs.js';
import { primaryRefsChecksum } from '../git-items.js';
import type { RetryPolicy } from '../../backoff.js';
import { itemsDueForVerification, markVerificationFailed, markVerified } from '../registry/verification.js';
import { refsChecksum } from '../repository-checksum.js';
import { localCopyPath } from './local-copy.js';

export interface VerifyDeps {
  readonly dataDir: string;
  /** Where file copies are (a store's copy is hashed as a stream, never held whole). */
  readonly blobs: BlobStores;
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
    const problem = await checkLocalCopy(deps, item);
    if (problem === null) markVerified(deps.db(), item, Date.now());
    else if (markVerificationFailed(deps.db(), item, problem, Date.now(), deps.retry)) failed++;
  }
  return { verified: items.length - failed, failed };
}

/** What `geoforge geo verify` reports of one item. */
export interface ItemVerification {
  readonly type: RegistryItem['item_type'];
  readonly item_id: number;
  readonly state: string;
  /** The checksum of the copy on this site's disk now; null when it is missing. */
  readonly local_checksum: string | null;
  /** What the primary recorded (a repository's refs checksum in repository_states, a file's sha256 in its row); null when it recorded none. */
  readonly primary_checksum: string | null;
  /** What the last sync recorded here. */
  readonly synced_checksum: string | null;
  readonly matches_primary: boolean | null;
  /** 'verified' (the copy equals the primary's), 'failed' (it does not: marked failed, so the workers fetch it again), 'not_synced' (nothing to check yet). */
  readonly result: 'verified' | 'failed' | 'not_synced';
  readonly problem: string | null;
}


/**
 * Re-checks one item now: its local copy's checksum against the primary's (from the replicated
 * database) and the synced one. A synced copy that matches is recorded verified; one that does
 * not is marked failed (verification), so the workers fetch it again.
 */
export async function verifyItem(deps: Pick<VerifyDeps, 'dataDir' | 'blobs' | 'db' | 'retry'>, item: RegistryItem, state: string): Promise<ItemVerification> {
  const local = localCopyPath(deps.dataDir, item);
  const gitType = isGitBlobType(item.item_type) ? item.item_type : null;
  const localChecksum = gitType ? await refsChecksum(local) : await copySha256(deps.blobs, item);
  const primaryChecksum = gitType ? primaryRefsChecksum(deps.db(), gitType, item.item_id) : item.expected_checksum;
  const base = { type: item.item_type, item_id: item.item_id, state, local_checksum: localChecksum, primary_checksum: primaryChecksum, synced_checksum: item.checksum };
  const matches = localChecksum === null || primaryChecksum === null ? null : localChecksum === primaryChecksum;
  if (state !== 'synced') {
    return { ...base, matches_primary: matches, result: 'not_synced', problem: state === 'failed' ? 'the item is failed: resync it first' : `the item is ${state}: its sync has not finished` };
  }
  let problem: string | null = null;
  if (localChecksum === null) problem = `verification: the local copy at ${item.path} is missing`;
  else if (primaryChecksum !== null && localChecksum !== primaryChecksum) problem = `verification: the local copy's checksum ${localChecksum} differs from the primary's ${primaryChecksum}`;
  else if (localChecksum !== item.checksum) problem = `verification: the local copy's checksum ${localChecksum} differs from the synced ${item.checksum}`;
  const now = Date.now();
  if (problem === null) markVerified(deps.db(), item, now);
  else markVerificationFailed(deps.db(), item, problem, now, deps.retry);
  return { ...base, matches_primary: matches, result: problem === null ? 'verified' : 'failed', problem };
}

/** Null when the local copy still matches the recorded checksum; otherwise what is wrong, in words. */
async function checkLocalCopy(deps: Pick<VerifyDeps, 'dataDir' | 'blobs'>, item: RegistryItem): Promise<string | null> {
  const actual = isGitBlobType(item.item_type) ? await refsChecksum(localCopyPath(deps.dataDir, item)) : await copySha256(deps.blobs, item);
  if (actual === null) return `verification: the local copy at ${item.path} is missing`;
  return actual === item.checksum ? null : `verification: the local copy's checksum ${actual} differs from the synced ${item.checksum}`;
}

/** The sha256 of a file copy as its store holds it now, streamed; null when it is missing. */
async function copySha256(blobs: BlobStores, item: RegistryItem): Promise<string | null> {
  const key = safeBlobPath(item.item_type, item.path);
  if (key === null) throw new Error(`registry path ${JSON.stringify(item.path)} is not a ${item.item_type} path`);
  return (await blobs.digest(key))?.sha256 ?? null;
}
