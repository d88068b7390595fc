import type { Db } from '../../db/connection.js';
import { selectPage, type Page, type Paged } from '../../db/page.js';
import { forbidden, notFound } from '../../errors.js';
import { findGeoNodeByName } from '../nodes.js';

/** `type` of GET /geo_nodes/current/failures: the item kinds a secondary replicates. */
export const FAILURE_TYPES = ['repository', 'wiki', 'lfs_object', 'job_artifact', 'attachment', 'snippet_repository', 'group_wiki_repository'] as const;
/** `failure_type`: a failed transfer, a failed verification, or a copy whose checksum differs from the primary's. */
export const FAILURE_KINDS = ['sync', 'verification', 'checksum_mismatch'] as const;

export interface FailureFilters {
  type?: (typeof FAILURE_TYPES)[number];
  failure_type?: (typeof FAILURE_KINDS)[number];
}

/** Geo sync failure: the SPEC's fields, then what GitLab leaves out (every item type, the failure's kind and retry plan). */
export interface GeoSyncFailure {
  project_id: number | null;
  last_repository_synced_at: string | null;
  last_repository_successful_sync_at: string | null;
  last_wiki_synced_at: string | null;
  last_wiki_successful_sync_at: string | null;
  repository_retry_count: number | null;
  wiki_retry_count: number | null;
  last_repository_sync_failure: string | null;
  last_wiki_sync_failure: string | null;
  type: (typeof FAILURE_TYPES)[number];
  item_id: number;
  failure_type: (typeof FAILURE_KINDS)[number] | null;
  retry_count: number;
  retry_at: string | null;
  last_sync_failure: string | null;
  missing_on_primary: boolean;
}

interface FailedRow {
  item_type: (typeof FAILURE_TYPES)[number];
  item_id: number;
  project_id: number | null;
  failure_type: (typeof FAILURE_KINDS)[number] | null;
  retry_count: number;
  retry_at: number | null;
  last_sync_failure: string | null;
  missing_on_primary: 0 | 1;
  last_synced_at: number | null;
  last_successful_sync_at: number | null;
}

/** GitLab's `YYYY-MM-DD HH:MM:SS UTC`. */
const utcTime = (ms: number | null) => (ms === null ? null : `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`);

/**
 * The current node's failed items, for GET /geo_nodes/current/failures, oldest first, paginated in
 * SQL: 404 while this site has no node row, 403 on the primary, which replicates nothing (Decision 16).
 */
export function listCurrentNodeFailures(db: Db, currentNode: string, filters: FailureFilters, page: Page): Paged<GeoSyncFailure> {
  const node = findGeoNodeByName(db, currentNode);
  if (!node) throw notFound('Geo node');
  if (node.primary === 1) throw forbidden('Failures can only be requested from a secondary node');
  const conditions = ["state = 'failed'"];
  const params: unknown[] = [];
  if (filters.type) {
    conditions.push('item_type = ?');
    params.push(filters.type);
  }
  if (filters.failure_type) {
    conditions.push('failure_type = ?');
    params.push(filters.failure_type);
  }
  const result = selectPage<FailedRow>(
    db,
    'item_type, item_id, project_id, failure_type, retry_count, retry_at, last_sync_failure, missing_on_primary, last_synced_at, last_successful_sync_at',
    `FROM geo_registry WHERE ${conditions.join(' AND ')}`,
    'id',
    params,
    page,
  );
  return { rows: result.rows.map(failureView), total: result.total };
}

function failureView(row: FailedRow): GeoSyncFailure {
  const repository = row.item_type === 'repository';
  const wiki = row.item_type === 'wiki';
  return {
    project_id: row.project_id,
    last_repository_synced_at: repository ? utcTime(row.last_synced_at) : null,
    last_repository_successful_sync_at: repository ? utcTime(row.last_successful_sync_at) : null,
    last_wiki_synced_at: wiki ? utcTime(row.last_synced_at) : null,
    last_wiki_successful_sync_at: wiki ? utcTime(row.last_successful_sync_at) : null,
    repository_retry_count: repository ? row.retry_count : null,
    wiki_retry_count: wiki ? row.retry_count : null,
    last_repository_sync_failure: repository ? row.last_sync_failure : null,
    last_wiki_sync_failure: wiki ? row.last_sync_failure : null,
    type: row.item_type,
    item_id: row.item_id,
    failure_type: row.failure_type,
    retry_count: row.retry_count,
    retry_at: utcTime(row.retry_at),
    last_sync_failure: row.last_sync_failure,
    missing_on_primary: row.missing_on_primary === 1,
  };
}
