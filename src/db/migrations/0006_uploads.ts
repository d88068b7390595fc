import type { Migration } from '../migrate.js';

/**
 * Project uploads (SPEC: POST /projects/:id/uploads). The row replicates like every table; the
 * file itself lives at DATA_DIR/uploads/<project_id>/<secret>/<filename> and travels as a blob
 * (sha256 and size let a secondary verify what it fetched). Deleting a project deletes its rows.
 */
export const uploads: Migration = {
  version: 6,
  name: 'uploads',
  sql: `
CREATE TABLE uploads (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  secret TEXT NOT NULL CHECK (length(secret) = 32),
  filename TEXT NOT NULL,
  size INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  mimetype TEXT NOT NULL,
  uploaded_by_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  created_at TEXT NOT NULL
);
-- Downloads look an upload up by the three parts of its URL.
CREATE UNIQUE INDEX uploads_project_secret_filename ON uploads (project_id, secret, filename);
CREATE INDEX uploads_uploaded_by ON uploads (uploaded_by_id);
`,
};
