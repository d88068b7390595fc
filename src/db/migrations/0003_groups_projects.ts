import type { Migration } from '../migrate.js';

/**
 * Groups, projects and who may do what with them. Groups live in `namespaces` (kind 'group'),
 * as in GitLab, so one full_path index keeps user and group paths apart. Visibility is GitLab's
 * level: 0 private, 10 internal, 20 public.
 */
export const groupsProjects: Migration = {
  version: 3,
  name: 'groups_projects',
  sql: `
ALTER TABLE namespaces ADD COLUMN full_name TEXT NOT NULL DEFAULT '';
ALTER TABLE namespaces ADD COLUMN description TEXT NOT NULL DEFAULT '';
ALTER TABLE namespaces ADD COLUMN visibility_level INTEGER NOT NULL DEFAULT 20;
ALTER TABLE namespaces ADD COLUMN lfs_enabled INTEGER NOT NULL DEFAULT 1;
ALTER TABLE namespaces ADD COLUMN request_access_enabled INTEGER NOT NULL DEFAULT 0;
ALTER TABLE namespaces ADD COLUMN membership_lock INTEGER NOT NULL DEFAULT 0;
ALTER TABLE namespaces ADD COLUMN share_with_group_lock INTEGER NOT NULL DEFAULT 0;
ALTER TABLE namespaces ADD COLUMN shared_runners_minutes_limit INTEGER;
ALTER TABLE namespaces ADD COLUMN avatar_path TEXT;
ALTER TABLE namespaces ADD COLUMN ldap_synced_at TEXT;
UPDATE namespaces SET full_name = name;
CREATE INDEX namespaces_kind_name ON namespaces (kind, name COLLATE NOCASE, id);
CREATE INDEX namespaces_visibility ON namespaces (kind, visibility_level, id);

CREATE TABLE group_members (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  namespace_id INTEGER NOT NULL REFERENCES namespaces (id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  access_level INTEGER NOT NULL CHECK (access_level IN (10, 20, 30, 40, 50)),
  expires_at TEXT,
  -- Granted by LDAP group sync, which may take it back; members added by hand are left alone.
  ldap INTEGER NOT NULL DEFAULT 0,
  created_by_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX group_members_namespace_user ON group_members (namespace_id, user_id);
CREATE INDEX group_members_user ON group_members (user_id, access_level);

CREATE TABLE projects (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  namespace_id INTEGER NOT NULL REFERENCES namespaces (id),
  name TEXT NOT NULL,
  path TEXT NOT NULL,
  description TEXT,
  visibility_level INTEGER NOT NULL DEFAULT 0 CHECK (visibility_level IN (0, 10, 20)),
  default_branch TEXT NOT NULL DEFAULT 'master',
  creator_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  issues_enabled INTEGER NOT NULL DEFAULT 1,
  merge_requests_enabled INTEGER NOT NULL DEFAULT 1,
  jobs_enabled INTEGER NOT NULL DEFAULT 1,
  wiki_enabled INTEGER NOT NULL DEFAULT 1,
  snippets_enabled INTEGER NOT NULL DEFAULT 1,
  container_registry_enabled INTEGER NOT NULL DEFAULT 1,
  shared_runners_enabled INTEGER NOT NULL DEFAULT 1,
  lfs_enabled INTEGER NOT NULL DEFAULT 1,
  request_access_enabled INTEGER NOT NULL DEFAULT 0,
  public_jobs INTEGER NOT NULL DEFAULT 1,
  only_allow_merge_if_pipeline_succeeds INTEGER NOT NULL DEFAULT 0,
  only_allow_merge_if_all_discussions_are_resolved INTEGER NOT NULL DEFAULT 0,
  resolve_outdated_diff_discussions INTEGER NOT NULL DEFAULT 0,
  printing_merge_request_link_enabled INTEGER NOT NULL DEFAULT 1,
  ci_config_path TEXT,
  repository_storage TEXT NOT NULL DEFAULT 'default',
  approvals_before_merge INTEGER NOT NULL DEFAULT 0,
  tag_list TEXT NOT NULL DEFAULT '[]',
  archived INTEGER NOT NULL DEFAULT 0,
  star_count INTEGER NOT NULL DEFAULT 0,
  forked_from_project_id INTEGER REFERENCES projects (id) ON DELETE SET NULL,
  import_url TEXT,
  import_status TEXT NOT NULL DEFAULT 'none' CHECK (import_status IN ('none', 'scheduled', 'started', 'finished', 'failed')),
  import_error TEXT,
  runners_token TEXT NOT NULL,
  avatar_path TEXT,
  last_activity_at TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX projects_namespace_path ON projects (namespace_id, path COLLATE NOCASE);
CREATE UNIQUE INDEX projects_namespace_name ON projects (namespace_id, name COLLATE NOCASE);
-- Lists page in SQL by these orders (GITLAB-NOTES 2.2: default created_at desc). The default
-- list hides archived projects, and anonymous callers see public ones only: these two indexes
-- serve those pages in order, so no request sorts or filters the whole table.
CREATE INDEX projects_created_at ON projects (created_at, id);
CREATE INDEX projects_unarchived_created_at ON projects (archived, created_at, id);
CREATE INDEX projects_visible_created_at ON projects (visibility_level, archived, created_at, id);
CREATE INDEX projects_updated_at ON projects (updated_at, id);
CREATE INDEX projects_last_activity_at ON projects (last_activity_at, id);
CREATE INDEX projects_name ON projects (name COLLATE NOCASE, id);
CREATE INDEX projects_path ON projects (path COLLATE NOCASE, id);
CREATE INDEX projects_visibility ON projects (visibility_level, archived, id);
CREATE INDEX projects_forked_from ON projects (forked_from_project_id);
CREATE INDEX projects_creator ON projects (creator_id);

CREATE TABLE project_members (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  access_level INTEGER NOT NULL CHECK (access_level IN (10, 20, 30, 40)),
  expires_at TEXT,
  created_by_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX project_members_project_user ON project_members (project_id, user_id);
CREATE INDEX project_members_user ON project_members (user_id, access_level);

-- A project shared with a group: the group's members get at most group_access on it.
CREATE TABLE project_group_links (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  group_id INTEGER NOT NULL REFERENCES namespaces (id) ON DELETE CASCADE,
  group_access INTEGER NOT NULL CHECK (group_access IN (10, 20, 30, 40)),
  expires_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX project_group_links_project_group ON project_group_links (project_id, group_id);
CREATE INDEX project_group_links_group ON project_group_links (group_id);

CREATE TABLE project_stars (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX project_stars_user_project ON project_stars (user_id, project_id);
CREATE INDEX project_stars_project ON project_stars (project_id);

CREATE TABLE group_custom_attributes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  group_id INTEGER NOT NULL REFERENCES namespaces (id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX group_custom_attributes_group_key ON group_custom_attributes (group_id, key);
CREATE INDEX group_custom_attributes_key_value ON group_custom_attributes (key, value);

CREATE TABLE project_custom_attributes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX project_custom_attributes_project_key ON project_custom_attributes (project_id, key);
CREATE INDEX project_custom_attributes_key_value ON project_custom_attributes (key, value);
`,
};
