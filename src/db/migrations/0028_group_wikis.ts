import type { Migration } from '../migrate.js';

/**
 * Group wikis (issue 26, item 3; GitLab EE's group_wiki_repositories): a group's wiki is a git
 * repository (storage/layout.ts groupWikiRepositoryPath), made on first write or first push. Its
 * row is the primary's Geo inventory of it, as repository_states is for projects: `checksum` the
 * refs checksum after the last change (NULL when computing it failed, for the fill job to redo).
 * The row goes with its group (ON DELETE CASCADE).
 *
 * geo_registry (site-local) is rebuilt so item_type takes `group_wiki_repository` (a CHECK cannot
 * be altered in SQLite), as migration 0025 did; rows keep their ids and the AUTOINCREMENT sequence
 * carries over.
 */
export const groupWikis: Migration = {
  version: 28,
  name: 'group_wikis',
  sql: `
CREATE TABLE group_wiki_repositories (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  group_id INTEGER NOT NULL UNIQUE REFERENCES namespaces (id) ON DELETE CASCADE,
  -- sha256 over the wiki repository's sorted refs and HEAD (geo/repository-checksum.ts).
  checksum TEXT,
  checksum_updated_at TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX group_wiki_repositories_checksummed ON group_wiki_repositories (id) WHERE checksum IS NOT NULL;

CREATE TABLE geo_registry_rebuilt (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  item_type TEXT NOT NULL CHECK (item_type IN ('repository', 'wiki', 'lfs_object', 'job_artifact', 'attachment', 'snippet_repository', 'group_wiki_repository')),
  -- The project id for a repository or wiki, the snippet id for a snippet repository, the group id for a group wiki, the row id for a file.
  item_id INTEGER NOT NULL,
  project_id INTEGER,
  path TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'started', 'synced', 'failed')),
  to_delete INTEGER NOT NULL DEFAULT 0 CHECK (to_delete IN (0, 1)),
  version INTEGER NOT NULL DEFAULT 1,
  expected_checksum TEXT,
  checksum TEXT,
  retry_count INTEGER NOT NULL DEFAULT 0,
  retry_at INTEGER,
  failure_type TEXT CHECK (failure_type IN ('sync', 'verification', 'checksum_mismatch')),
  last_sync_failure TEXT,
  missing_on_primary INTEGER NOT NULL DEFAULT 0 CHECK (missing_on_primary IN (0, 1)),
  event_at INTEGER,
  started_at INTEGER,
  last_synced_at INTEGER,
  last_successful_sync_at INTEGER,
  verified_at INTEGER,
  created_at INTEGER NOT NULL
);
INSERT INTO geo_registry_rebuilt SELECT * FROM geo_registry;
DELETE FROM sqlite_sequence WHERE name = 'geo_registry_rebuilt';
INSERT INTO sqlite_sequence (name, seq) SELECT 'geo_registry_rebuilt', seq FROM sqlite_sequence WHERE name = 'geo_registry';
DROP TABLE geo_registry;
ALTER TABLE geo_registry_rebuilt RENAME TO geo_registry;
CREATE UNIQUE INDEX geo_registry_item ON geo_registry (item_type, item_id);
CREATE INDEX geo_registry_due ON geo_registry (state, retry_at);
CREATE INDEX geo_registry_type_state ON geo_registry (item_type, state, failure_type);
CREATE INDEX geo_registry_project ON geo_registry (project_id);
`,
};
