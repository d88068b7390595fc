import type { Migration } from '../migrate.js';

/**
 * Protected branches and tags (GitLab's protected_branches / protected_tags with their access
 * levels folded into the row: one level per action, as GitLab 10.x's API sets them) and the
 * release notes of tags (GitLab 10.x's releases: one description per tag). Every table
 * replicates. The default branch of every existing project gets GitLab's default protection
 * (maintainers push and merge), what a first push gives a new project (services/repository/
 * protected-refs.ts): before this migration the default branch refused force-pushes and deletion
 * for everyone, and this keeps it protected.
 */
export const protectedRefs: Migration = {
  version: 14,
  name: 'protected_refs',
  sql: `
CREATE TABLE protected_branches (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  -- A branch name or a wildcard pattern (\`release-*\`: \`*\` matches any run of characters).
  name TEXT NOT NULL,
  -- 0 no one, 30 developers and maintainers, 40 maintainers (admins always may).
  push_access_level INTEGER NOT NULL CHECK (push_access_level IN (0, 30, 40)),
  merge_access_level INTEGER NOT NULL CHECK (merge_access_level IN (0, 30, 40)),
  unprotect_access_level INTEGER NOT NULL CHECK (unprotect_access_level IN (30, 40, 60)),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX protected_branches_project_name ON protected_branches (project_id, name);

CREATE TABLE protected_tags (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  create_access_level INTEGER NOT NULL CHECK (create_access_level IN (0, 30, 40)),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX protected_tags_project_name ON protected_tags (project_id, name);

CREATE TABLE releases (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  tag TEXT NOT NULL,
  description TEXT NOT NULL,
  author_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX releases_project_tag ON releases (project_id, tag);
CREATE INDEX releases_author ON releases (author_id);

INSERT INTO protected_branches (project_id, name, push_access_level, merge_access_level, unprotect_access_level, created_at, updated_at)
  SELECT id, default_branch, 40, 40, 40, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
  FROM projects WHERE default_branch IS NOT NULL AND default_branch <> '';
`,
};
