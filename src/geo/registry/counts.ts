import type { Db } from '../../db/connection.js';
import { prepare } from '../../db/connection.js';
import type { BlobType } from '../blobs.js';
import type { BlobCounts, BlobKind, VerificationCounts, VerifiedKind } from '../status.js';
import { selectedInventoryCounts } from '../selective-sync.js';

/** The status kind of each registry item type. */
const KIND_OF: Readonly<Record<BlobType, BlobKind>> = {
  repository: 'repositories',
  wiki: 'wikis',
  lfs_object: 'lfs_objects',
  job_artifact: 'job_artifacts',
  attachment: 'attachments',
  snippet_repository: 'snippet_repositories',
  group_wiki_repository: 'group_wiki_repositories',
};

/** What the primary holds, per kind, as the replicated database lists it (each an indexed count). */
const INVENTORY_COUNTS: Readonly<Record<BlobKind, string>> = {
  repositories: 'SELECT count(*) FROM repository_states WHERE repository_checksum IS NOT NULL',
  wikis: 'SELECT count(*) FROM repository_states WHERE wiki_checksum IS NOT NULL',
  lfs_objects: 'SELECT count(*) FROM lfs_objects',
  job_artifacts: 'SELECT count(*) FROM ci_job_artifacts',
  attachments: 'SELECT count(*) FROM uploads',
  snippet_repositories: 'SELECT count(*) FROM snippets WHERE repository_checksum IS NOT NULL',
  group_wiki_repositories: 'SELECT count(*) FROM group_wiki_repositories WHERE checksum IS NOT NULL',
};

/**
 * Per kind: the primary's inventory, and this site's synced and failed items. A deleted item is
 * never synced or failed (marking it to_delete makes it pending), so the registry counts need no
 * more than a count over the (item_type, state, failure_type) index.
 */
export function registryBlobCounts(db: Db, selectiveNode: number | null = null): Record<BlobKind, BlobCounts> {
  // With selective sync, what this node should hold is the inventory within its selection.
  const selected = selectiveNode === null ? null : selectedInventoryCounts(db, selectiveNode);
  const counts = Object.fromEntries(
    Object.entries(INVENTORY_COUNTS).map(([kind, sql]) => [kind, { count: selected ? selected[kind as BlobKind] : (prepare(db, sql).pluck().get() as number), synced: 0, failed: 0 }]),
  ) as Record<BlobKind, { count: number; synced: number; failed: number }>;
  const count = prepare(db, 'SELECT count(*) FROM geo_registry WHERE item_type = ? AND state = ?').pluck();
  for (const [type, kind] of Object.entries(KIND_OF)) {
    counts[kind].synced = count.get(type, 'synced') as number;
    counts[kind].failed = count.get(type, 'failed') as number;
  }
  return counts;
}

/** Where each verified kind's items and the primary's checksums of them are: the registry type and the inventory table. */
const VERIFIED_SOURCES: Readonly<Record<VerifiedKind, { type: BlobType; checksummed: string; checksumFailed: string }>> = {
  group_wiki_repositories: {
    type: 'group_wiki_repository',
    checksummed: 'SELECT count(*) FROM group_wiki_repositories WHERE checksum IS NOT NULL',
    checksumFailed: 'SELECT count(*) FROM group_wiki_repositories WHERE checksum IS NULL',
  },
};

/**
 * The verified kinds' checksum and verification figures (GitLab 17's GeoNodeStatus): the
 * primary's checksums as replicated, and this site's registry rows, synced ones (each verified
 * when synced and again by re-verification), verified ones and failed verifications. Indexed counts.
 */
export function registryVerificationCounts(db: Db): Record<VerifiedKind, VerificationCounts> {
  const count = (sql: string, ...params: unknown[]) => prepare(db, sql).pluck().get(...params) as number;
  const entries = Object.entries(VERIFIED_SOURCES).map(([kind, source]) => [
    kind,
    {
      checksummed: count(source.checksummed),
      checksumFailed: count(source.checksumFailed),
      registry: count('SELECT count(*) FROM geo_registry WHERE item_type = ? AND to_delete = 0', source.type),
      verificationTotal: count("SELECT count(*) FROM geo_registry WHERE item_type = ? AND state = 'synced'", source.type),
      verified: count("SELECT count(*) FROM geo_registry WHERE item_type = ? AND state = 'synced' AND verified_at IS NOT NULL", source.type),
      verificationFailed: count("SELECT count(*) FROM geo_registry WHERE item_type = ? AND state = 'failed' AND failure_type IN ('verification', 'checksum_mismatch')", source.type),
    },
  ]);
  return Object.fromEntries(entries) as Record<VerifiedKind, VerificationCounts>;
}

/** The oldest unsynced blob event's time (ms, the primary's clock), or null when everything is synced. */
export function blobsPendingSince(db: Db): number | null {
  return (prepare(db, "SELECT min(coalesce(event_at, 0)) FROM geo_registry WHERE state <> 'synced'").pluck().get() as number | null) ?? null;
}

/** Items not synced because the primary lacks them itself (missing_on_primary). */
export function missingOnPrimaryCount(db: Db): number {
  return prepare(db, "SELECT count(*) FROM geo_registry WHERE missing_on_primary = 1 AND state <> 'synced' AND to_delete = 0").pluck().get() as number;
}
