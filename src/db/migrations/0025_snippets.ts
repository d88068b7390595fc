import type { Migration } from '../migrate.js';

/**
 * Snippets (issue 26, item 2): personal ones (project_id NULL) and project ones. Each snippet's
 * files live in its own git repository (storage/layout.ts snippetRepositoryPath); the row keeps
 * what the API lists without opening it. repository_checksum is the primary's inventory of the
 * snippet's repository for Geo (as repository_states is for projects): NULL while none exists.
 *
 * notes and todos are rebuilt so notes take the noteable type `Snippet` (a CHECK cannot be
 * altered in SQLite). todos reference notes, so todos are copied aside first and rebuilt after:
 * dropping notes while todos referenced it would cascade-delete their rows. Rows keep their ids
 * and AUTOINCREMENT sequences carry over. geo_registry (site-local) takes the item type
 * `snippet_repository` the same way.
 */
export const snippets: Migration = {
  version: 25,
  name: 'snippets',
  sql: `
CREATE TABLE snippets (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  title TEXT NOT NULL,
  description TEXT,
  author_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  project_id INTEGER REFERENCES projects (id) ON DELETE CASCADE,
  visibility_level INTEGER NOT NULL CHECK (visibility_level IN (0, 10, 20)),
  -- The paths of the files on the repository's default branch (a JSON array, in git's order), kept
  -- by every API write and push, so lists show files and file_name without opening repositories.
  file_paths TEXT NOT NULL DEFAULT '[]',
  -- sha256 over the snippet repository's sorted refs and HEAD (geo/repository-checksum.ts).
  repository_checksum TEXT,
  repository_updated_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX snippets_author ON snippets (author_id, id);
CREATE INDEX snippets_project ON snippets (project_id, id);
CREATE INDEX snippets_visibility ON snippets (visibility_level, id);
CREATE INDEX snippets_repository ON snippets (id) WHERE repository_checksum IS NOT NULL;

CREATE TABLE notes_rebuilt (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER REFERENCES projects (id) ON DELETE CASCADE,
  noteable_type TEXT NOT NULL CHECK (noteable_type IN ('Issue', 'MergeRequest', 'Epic', 'Commit', 'Snippet')),
  noteable_id INTEGER,
  commit_id TEXT,
  author_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  body TEXT NOT NULL,
  system INTEGER NOT NULL DEFAULT 0 CHECK (system IN (0, 1)),
  discussion_id TEXT NOT NULL,
  type TEXT CHECK (type IN ('DiscussionNote', 'DiffNote')),
  resolvable INTEGER NOT NULL DEFAULT 0 CHECK (resolvable IN (0, 1)),
  resolved_at TEXT,
  resolved_by_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  position TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
INSERT INTO notes_rebuilt SELECT id, project_id, noteable_type, noteable_id, commit_id, author_id, body, system, discussion_id, type, resolvable, resolved_at, resolved_by_id, position, created_at, updated_at FROM notes;
DELETE FROM sqlite_sequence WHERE name = 'notes_rebuilt';
INSERT INTO sqlite_sequence (name, seq) SELECT 'notes_rebuilt', seq FROM sqlite_sequence WHERE name = 'notes';
CREATE TEMP TABLE todos_aside AS SELECT * FROM todos;
CREATE TEMP TABLE todos_sequence AS SELECT seq FROM sqlite_sequence WHERE name = 'todos';
DROP TABLE todos;
DROP TABLE notes;
ALTER TABLE notes_rebuilt RENAME TO notes;
CREATE INDEX notes_noteable ON notes (noteable_type, noteable_id, created_at, id);
CREATE INDEX notes_discussion ON notes (discussion_id, created_at, id);
CREATE INDEX notes_author ON notes (author_id);
CREATE INDEX notes_project_commit ON notes (project_id, commit_id);
CREATE INDEX notes_resolved_by ON notes (resolved_by_id);

CREATE TABLE todos (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  author_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  project_id INTEGER REFERENCES projects (id) ON DELETE CASCADE,
  group_id INTEGER REFERENCES namespaces (id) ON DELETE CASCADE,
  target_type TEXT NOT NULL CHECK (target_type IN ('Issue', 'MergeRequest', 'Epic', 'Commit')),
  target_id INTEGER,
  commit_id TEXT,
  action TEXT NOT NULL CHECK (action IN ('assigned', 'mentioned', 'build_failed', 'marked', 'approval_required', 'unmergeable', 'directly_addressed', 'review_requested')),
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done')),
  note_id INTEGER REFERENCES notes (id) ON DELETE CASCADE,
  body TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
INSERT INTO todos SELECT id, user_id, author_id, project_id, group_id, target_type, target_id, commit_id, action, state, note_id, body, created_at, updated_at FROM todos_aside;
DELETE FROM sqlite_sequence WHERE name = 'todos';
INSERT INTO sqlite_sequence (name, seq) SELECT 'todos', seq FROM todos_sequence;
DROP TABLE todos_aside;
DROP TABLE todos_sequence;
CREATE INDEX todos_user_state ON todos (user_id, state, id);
CREATE INDEX todos_target ON todos (target_type, target_id, user_id, state);
CREATE INDEX todos_author ON todos (author_id);
CREATE INDEX todos_project ON todos (project_id);
CREATE INDEX todos_group ON todos (group_id);
CREATE INDEX todos_note ON todos (note_id);

CREATE TABLE geo_registry_rebuilt (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  item_type TEXT NOT NULL CHECK (item_type IN ('repository', 'wiki', 'lfs_object', 'job_artifact', 'attachment', 'snippet_repository')),
  -- The project id for a repository or wiki, the snippet id for a snippet repository, the row id for a file.
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
