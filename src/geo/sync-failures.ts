import type { Db } from '../db/connection.js';
import type { Page, Paged } from '../db/page.js';
import { forbidden, notFound } from '../errors.js';
import { findGeoNodeByName } from './nodes.js';

/** `type` of GET /geo_nodes/current/failures: the item kinds a secondary replicates. */
export const FAILURE_TYPES = ['repository', 'wiki', 'lfs_object', 'job_artifact', 'attachment'] as const;
/** `failure_type`: a failed transfer, a failed verification, or a copy whose checksum differs from the primary's. */
export const FAILURE_KINDS = ['sync', 'verification', 'checksum_mismatch'] as const;

export interface FailureFilters {
  type?: (typeof FAILURE_TYPES)[number];
  failure_type?: (typeof FAILURE_KINDS)[number];
}

/** Geo sync failure, with the SPEC's fields. */
export interface GeoSyncFailure {
  project_id: number;
  last_repository_synced_at: string | null;
  last_repository_successful_sync_at: string | null;
  last_wiki_synced_at: string | null;
  last_wiki_successful_sync_at: string | null;
  repository_retry_count: number | null;
  wiki_retry_count: number | null;
  last_repository_sync_failure: string | null;
  last_wiki_sync_failure: string | null;
}

/**
 * The current node's failed items, for GET /geo_nodes/current/failures: 404 while this site has
 * no node row, 403 on the primary, which replicates nothing (Decision 16).
 */
export function listCurrentNodeFailures(db: Db, currentNode: string, _filters: FailureFilters, _page: Page): Paged<GeoSyncFailure> {
  const node = findGeoNodeByName(db, currentNode);
  if (!node) throw notFound('Geo node');
  if (node.primary === 1) throw forbidden('Failures can only be requested from a secondary node');
  // Blob replication keeps no registry yet, so nothing can have failed: this is the one place that
  // will read the registry's failed rows, filtered by type and failure_type, once it exists.
  return { rows: [], total: 0 };
}
