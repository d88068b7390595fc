import type { Db } from '../../db/connection.js';
import { inTransaction, prepare } from '../../db/connection.js';
import { artifactFilePath, groupWikiRepositoryPath, lfsObjectPath, repositoryPath, snippetRepositoryPath, uploadFilePath, wikiRepositoryPath } from '../../storage/layout.js';
import type { BlobType } from '../blobs.js';

/** One item of the primary's inventory, as the replicated database lists it. */
interface InventoryRow {
  /** The inventory table's id: the paging key. */
  readonly key: number;
  readonly item_id: number;
  readonly project_id: number | null;
  readonly path: string;
  readonly checksum: string;
}

interface InventorySource {
  /** Up to `limit` rows with key > `after`, in key order (an indexed range). */
  readonly sql: string;
  readonly path: (row: Record<string, unknown>) => string;
}

// Paths relative to the data directory: the helpers join onto '.', which path.join drops.
const SOURCES: Readonly<Record<BlobType, InventorySource>> = {
  repository: {
    sql: 'SELECT id AS key, project_id AS item_id, project_id, repository_checksum AS checksum FROM repository_states WHERE repository_checksum IS NOT NULL AND id > ? ORDER BY id LIMIT ?',
    path: (row) => repositoryPath('.', row.item_id as number),
  },
  wiki: {
    sql: 'SELECT id AS key, project_id AS item_id, project_id, wiki_checksum AS checksum FROM repository_states WHERE wiki_checksum IS NOT NULL AND id > ? ORDER BY id LIMIT ?',
    path: (row) => wikiRepositoryPath('.', row.item_id as number),
  },
  lfs_object: {
    sql: 'SELECT id AS key, id AS item_id, NULL AS project_id, oid AS checksum FROM lfs_objects WHERE id > ? ORDER BY id LIMIT ?',
    path: (row) => lfsObjectPath('.', row.checksum as string),
  },
  job_artifact: {
    sql: 'SELECT id AS key, id AS item_id, project_id, job_id, filename, sha256 AS checksum FROM ci_job_artifacts WHERE id > ? ORDER BY id LIMIT ?',
    path: (row) => artifactFilePath('.', row as { project_id: number; job_id: number; filename: string }),
  },
  attachment: {
    sql: 'SELECT id AS key, id AS item_id, project_id, secret, filename, sha256 AS checksum FROM uploads WHERE id > ? ORDER BY id LIMIT ?',
    path: (row) => uploadFilePath('.', row as { project_id: number; secret: string; filename: string }),
  },
  snippet_repository: {
    sql: 'SELECT id AS key, id AS item_id, project_id, repository_checksum AS checksum FROM snippets WHERE repository_checksum IS NOT NULL AND id > ? ORDER BY id LIMIT ?',
    path: (row) => snippetRepositoryPath('.', row.item_id as number),
  },
  group_wiki_repository: {
    sql: 'SELECT id AS key, group_id AS item_id, NULL AS project_id, checksum FROM group_wiki_repositories WHERE checksum IS NOT NULL AND id > ? ORDER BY id LIMIT ?',
    path: (row) => groupWikiRepositoryPath('.', row.item_id as number),
  },
};

/**
 * Schedules the items of one inventory page that the registry does not know yet (pending, as an
 * event would). Returns the page's last key (null past the end) and how many rows it added.
 */
/** Whether this site keeps an item (selective sync); absent, it keeps everything. */
export type Holds = (db: Db, type: BlobType, itemId: number, projectId: number | null) => boolean;

export function scheduleMissingItems(db: Db, type: BlobType, afterKey: number, limit: number, now: number, holds?: Holds): { lastKey: number | null; added: number } {
  const source = SOURCES[type];
  return inTransaction(db, () => {
    const rows = (prepare(db, source.sql).all(afterKey, limit) as Record<string, unknown>[]).map(
      (row): InventoryRow => ({ key: row.key as number, item_id: row.item_id as number, project_id: row.project_id as number | null, checksum: row.checksum as string, path: source.path(row) }),
    );
    const insert = prepare(
      db,
      `INSERT INTO geo_registry (item_type, item_id, project_id, path, state, expected_checksum, created_at)
       VALUES (?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT (item_type, item_id) DO NOTHING`,
    );
    let added = 0;
    for (const row of rows) {
      if (holds && !holds(db, type, row.item_id, row.project_id)) continue;
      added += insert.run(type, row.item_id, row.project_id, row.path, row.checksum, now).changes;
    }
    return { lastKey: rows.length === limit ? rows[rows.length - 1].key : null, added };
  });
}

/** Marks an item pending again: a new version, so a sync in flight ends pending too. */
const RESCHEDULE = "version = version + 1, retry_at = NULL, state = CASE WHEN state = 'started' THEN state ELSE 'pending' END";

/**
 * Reconciles one page of the registry (ids after `afterId`) with the replicated database: items
 * whose row (a repository's project) is gone are marked to_delete; synced repositories and wikis
 * whose checksum differs from the primary's repository_states are synced again. Returns the
 * page's last id (null past the end) and the counts.
 */
export function reconcileRegistryPage(db: Db, afterId: number, limit: number, holds?: Holds): { lastId: number | null; deleted: number; stale: number } {
  return inTransaction(db, () => {
    const upTo = prepare(db, 'SELECT max(id) AS last, count(*) AS n FROM (SELECT id FROM geo_registry WHERE id > ? ORDER BY id LIMIT ?)').get(afterId, limit) as {
      last: number | null;
      n: number;
    };
    if (upTo.last === null) return { lastId: null, deleted: 0, stale: 0 };
    const deleted = prepare(
      db,
      `UPDATE geo_registry SET to_delete = 1, retry_count = 0, ${RESCHEDULE}
       WHERE id > ? AND id <= ? AND to_delete = 0 AND CASE item_type
         WHEN 'lfs_object' THEN NOT EXISTS (SELECT 1 FROM lfs_objects WHERE id = geo_registry.item_id)
         WHEN 'job_artifact' THEN NOT EXISTS (SELECT 1 FROM ci_job_artifacts WHERE id = geo_registry.item_id)
         WHEN 'attachment' THEN NOT EXISTS (SELECT 1 FROM uploads WHERE id = geo_registry.item_id)
         WHEN 'snippet_repository' THEN NOT EXISTS (SELECT 1 FROM snippets WHERE id = geo_registry.item_id)
         WHEN 'group_wiki_repository' THEN NOT EXISTS (SELECT 1 FROM group_wiki_repositories WHERE group_id = geo_registry.item_id)
         ELSE NOT EXISTS (SELECT 1 FROM projects WHERE id = geo_registry.item_id) END`,
    ).run(afterId, upTo.last).changes;
    let deselected = 0;
    if (holds) {
      // Items outside this node's selection (it changed) go like deleted ones: the copy, then the row.
      const page = prepare(db, 'SELECT id, item_type, item_id, project_id FROM geo_registry WHERE id > ? AND id <= ? AND to_delete = 0').all(afterId, upTo.last) as Array<{
        id: number;
        item_type: BlobType;
        item_id: number;
        project_id: number | null;
      }>;
      const drop = prepare(db, `UPDATE geo_registry SET to_delete = 1, retry_count = 0, ${RESCHEDULE} WHERE id = ?`);
      for (const row of page) if (!holds(db, row.item_type, row.item_id, row.project_id)) deselected += drop.run(row.id).changes;
    }
    // coalesce(primary's, ours): no recorded checksum means nothing to compare against.
    const stale =
      prepare(
        db,
        `UPDATE geo_registry SET ${RESCHEDULE}
       WHERE id > ? AND id <= ? AND state = 'synced' AND item_type IN ('repository', 'wiki')
         AND coalesce((SELECT CASE geo_registry.item_type WHEN 'repository' THEN repository_checksum ELSE wiki_checksum END
                       FROM repository_states WHERE project_id = geo_registry.item_id), checksum) IS NOT checksum`,
      ).run(afterId, upTo.last).changes +
      prepare(
        db,
        `UPDATE geo_registry SET ${RESCHEDULE}
       WHERE id > ? AND id <= ? AND state = 'synced' AND item_type = 'snippet_repository'
         AND coalesce((SELECT repository_checksum FROM snippets WHERE id = geo_registry.item_id), checksum) IS NOT checksum`,
      ).run(afterId, upTo.last).changes +
      prepare(
        db,
        `UPDATE geo_registry SET ${RESCHEDULE}
       WHERE id > ? AND id <= ? AND state = 'synced' AND item_type = 'group_wiki_repository'
         AND coalesce((SELECT checksum FROM group_wiki_repositories WHERE group_id = geo_registry.item_id), checksum) IS NOT checksum`,
      ).run(afterId, upTo.last).changes;
    return { lastId: upTo.n === limit ? upTo.last : null, deleted: deleted + deselected, stale };
  });
}
