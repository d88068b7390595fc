import type { Migration } from '../migrate.js';

/**
 * Geo blob replication (DESIGN.md, Replication).
 *
 * repository_states replicates: the primary's inventory of repositories and wikis that exist on
 * its disk, each with a checksum of its refs, written in the same transaction as the blob event
 * of the change; a secondary compares its own copy's checksum with it.
 *
 * geo_registry is site-local (db/local-tables.ts): a secondary's sync state, one row per
 * repository, wiki and file it must hold. Times are ms since the epoch.
 */
export const geoBlobs: Migration = {
  version: 9,
  name: 'geo_blobs',
  sql: `
CREATE TABLE repository_states (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL UNIQUE REFERENCES projects (id) ON DELETE CASCADE,
  -- sha256 over the sorted ref list and HEAD; NULL while the repository does not exist.
  repository_checksum TEXT,
  repository_updated_at TEXT,
  wiki_checksum TEXT,
  wiki_updated_at TEXT
);
CREATE INDEX repository_states_repository ON repository_states (id) WHERE repository_checksum IS NOT NULL;
CREATE INDEX repository_states_wiki ON repository_states (id) WHERE wiki_checksum IS NOT NULL;

CREATE TABLE geo_registry (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  item_type TEXT NOT NULL CHECK (item_type IN ('repository', 'wiki', 'lfs_object', 'job_artifact', 'attachment')),
  -- The project id for a repository or wiki; the row id (lfs_objects, ci_job_artifacts, uploads) for a file.
  item_id INTEGER NOT NULL,
  project_id INTEGER,
  -- Where the local copy lives, relative to the data directory (the same layout as the primary's).
  path TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'started', 'synced', 'failed')),
  -- The item was deleted on the primary: the worker removes the local copy, then this row.
  to_delete INTEGER NOT NULL DEFAULT 0 CHECK (to_delete IN (0, 1)),
  -- Bumped by every event for the item: a sync that began at an older version ends pending, so
  -- ten events for one repository while it syncs cost one more sync, not ten.
  version INTEGER NOT NULL DEFAULT 1,
  -- The primary's checksum (repositories, wikis) or sha256 (files) named by the newest event.
  expected_checksum TEXT,
  -- The local copy's checksum at its last sync or verification.
  checksum TEXT,
  retry_count INTEGER NOT NULL DEFAULT 0,
  retry_at INTEGER,
  failure_type TEXT CHECK (failure_type IN ('sync', 'verification', 'checksum_mismatch')),
  last_sync_failure TEXT,
  missing_on_primary INTEGER NOT NULL DEFAULT 0 CHECK (missing_on_primary IN (0, 1)),
  -- The primary's time of the oldest event not yet synced: end-to-end lag per data type.
  event_at INTEGER,
  started_at INTEGER,
  last_synced_at INTEGER,
  last_successful_sync_at INTEGER,
  verified_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX geo_registry_item ON geo_registry (item_type, item_id);
CREATE INDEX geo_registry_due ON geo_registry (state, retry_at);
CREATE INDEX geo_registry_type_state ON geo_registry (item_type, state, failure_type);
CREATE INDEX geo_registry_project ON geo_registry (project_id);
`,
};
