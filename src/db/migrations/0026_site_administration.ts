import type { Migration } from '../migrate.js';

/**
 * The rest of the forge's index (issue 26, item 9): broadcast messages, the application settings
 * an admin changes at run time, and access requests to groups and projects. All three replicate
 * (INTEGER `id` keys): a secondary shows the same banners, obeys the same settings, and lists the
 * same requests.
 */
export const siteAdministration: Migration = {
  version: 26,
  name: 'site_administration',
  sql: `
-- A banner or notification shown between starts_at and ends_at (ISO times); active is computed
-- when read, never stored. target_access_levels is a JSON array of access levels.
CREATE TABLE broadcast_messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  message TEXT NOT NULL,
  starts_at TEXT NOT NULL,
  ends_at TEXT NOT NULL,
  color TEXT,
  font TEXT,
  target_access_levels TEXT NOT NULL DEFAULT '[]',
  target_path TEXT,
  broadcast_type TEXT NOT NULL DEFAULT 'banner' CHECK (broadcast_type IN ('banner', 'notification')),
  dismissable INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- One row (id 1) once an admin changed a setting: a JSON object of the keys set through the API,
-- over the config file's defaults. Without the row every setting is its default.
CREATE TABLE application_settings (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  settings TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- A user asking to join a group or a project (GitLab keeps them as members with requested_at);
-- approving one makes a member and deletes the request.
CREATE TABLE access_requests (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER REFERENCES projects (id) ON DELETE CASCADE,
  group_id INTEGER REFERENCES namespaces (id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  requested_at TEXT NOT NULL,
  CHECK ((project_id IS NULL) <> (group_id IS NULL))
);
CREATE UNIQUE INDEX access_requests_project ON access_requests (project_id, user_id) WHERE project_id IS NOT NULL;
CREATE UNIQUE INDEX access_requests_group ON access_requests (group_id, user_id) WHERE group_id IS NOT NULL;
CREATE INDEX access_requests_user ON access_requests (user_id);
`,
};
