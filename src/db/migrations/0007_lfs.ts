import type { Migration } from '../migrate.js';

/**
 * Git LFS objects (GITLAB-NOTES 5, Git LFS). An object is stored once, content-addressed at
 * DATA_DIR/lfs-objects/<oid[0:2]>/<oid[2:4]>/<oid>; lfs_objects_projects says which projects may
 * download it. Deleting a project deletes its links; the object row stays for other projects.
 */
export const lfs: Migration = {
  version: 7,
  name: 'lfs',
  sql: `
CREATE TABLE lfs_objects (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  oid TEXT NOT NULL UNIQUE CHECK (length(oid) = 64),
  size INTEGER NOT NULL CHECK (size >= 0),
  created_at TEXT NOT NULL
);
CREATE TABLE lfs_objects_projects (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  lfs_object_id INTEGER NOT NULL REFERENCES lfs_objects (id) ON DELETE CASCADE,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX lfs_objects_projects_object_project ON lfs_objects_projects (lfs_object_id, project_id);
CREATE INDEX lfs_objects_projects_project ON lfs_objects_projects (project_id);
`,
};
