import type { Migration } from '../migrate.js';

/**
 * Settings people set (issue 17, item 6): badges of projects and groups, notification settings
 * (global, per group, per project), user statuses, and group webhooks (ee). The four new tables
 * replicate (INTEGER `id` keys). The webhook queue and log, site-local tables, are rebuilt so that
 * a delivery names either a project hook or a group hook (exactly one), each deleted with its hook.
 */
export const settings: Migration = {
  version: 16,
  name: 'settings',
  sql: `
-- A badge belongs to a project or to a group, never both. Lists read a project's own badges and
-- those of its group and ancestors, oldest first (GitLab orders by created_at; ids follow it).
CREATE TABLE badges (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER REFERENCES projects (id) ON DELETE CASCADE,
  group_id INTEGER REFERENCES namespaces (id) ON DELETE CASCADE,
  name TEXT,
  link_url TEXT NOT NULL,
  image_url TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  CHECK ((project_id IS NULL) <> (group_id IS NULL))
);
CREATE INDEX badges_project ON badges (project_id, id) WHERE project_id IS NOT NULL;
CREATE INDEX badges_group ON badges (group_id, id) WHERE group_id IS NOT NULL;

-- One row per user and source: the global one (no project, no group), a group's or a project's.
-- A row exists only once the user changed it: reads answer the defaults without writing.
-- events is a JSON object of the custom events switched on or off; notification_email sits on
-- the global row only (GitLab keeps it on users).
CREATE TABLE notification_settings (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  project_id INTEGER REFERENCES projects (id) ON DELETE CASCADE,
  group_id INTEGER REFERENCES namespaces (id) ON DELETE CASCADE,
  level TEXT NOT NULL CHECK (level IN ('disabled', 'participating', 'watch', 'global', 'mention', 'custom')),
  events TEXT NOT NULL DEFAULT '{}',
  notification_email TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  CHECK (project_id IS NULL OR group_id IS NULL)
);
CREATE UNIQUE INDEX notification_settings_source ON notification_settings (user_id, ifnull(project_id, 0), ifnull(group_id, 0));
CREATE INDEX notification_settings_project ON notification_settings (project_id) WHERE project_id IS NOT NULL;
CREATE INDEX notification_settings_group ON notification_settings (group_id) WHERE group_id IS NOT NULL;

-- A user's status: an emoji and a short message; cleared by deleting the row.
CREATE TABLE user_statuses (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  emoji TEXT NOT NULL,
  message TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX user_statuses_user ON user_statuses (user_id);

-- Group webhooks (ee): a project hook's columns, owned by a group. The group's projects, and those
-- of its subgroups, fire them with the project's events (services/hooks/fire.ts).
CREATE TABLE group_hooks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  group_id INTEGER NOT NULL REFERENCES namespaces (id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  token TEXT,
  push_events INTEGER NOT NULL DEFAULT 1,
  tag_push_events INTEGER NOT NULL DEFAULT 0,
  issues_events INTEGER NOT NULL DEFAULT 0,
  confidential_issues_events INTEGER NOT NULL DEFAULT 0,
  merge_requests_events INTEGER NOT NULL DEFAULT 0,
  note_events INTEGER NOT NULL DEFAULT 0,
  job_events INTEGER NOT NULL DEFAULT 0,
  pipeline_events INTEGER NOT NULL DEFAULT 0,
  wiki_page_events INTEGER NOT NULL DEFAULT 0,
  enable_ssl_verification INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX group_hooks_group ON group_hooks (group_id, id);

-- The queue and the log, rebuilt with a group_hook_id beside hook_id (exactly one is set). Both are
-- site-local, so the rebuild replicates nothing; rows keep their ids, and the AUTOINCREMENT
-- sequences carry over, so no id is handed out twice.
CREATE TABLE web_hook_queue_rebuilt (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  hook_id INTEGER REFERENCES project_hooks (id) ON DELETE CASCADE,
  group_hook_id INTEGER REFERENCES group_hooks (id) ON DELETE CASCADE,
  event TEXT NOT NULL,
  body TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  CHECK ((hook_id IS NULL) <> (group_hook_id IS NULL))
);
INSERT INTO web_hook_queue_rebuilt (id, hook_id, event, body, attempts, next_attempt_at, created_at)
  SELECT id, hook_id, event, body, attempts, next_attempt_at, created_at FROM web_hook_queue;
DELETE FROM sqlite_sequence WHERE name = 'web_hook_queue_rebuilt';
INSERT INTO sqlite_sequence (name, seq) SELECT 'web_hook_queue_rebuilt', seq FROM sqlite_sequence WHERE name = 'web_hook_queue';
DROP TABLE web_hook_queue;
ALTER TABLE web_hook_queue_rebuilt RENAME TO web_hook_queue;
CREATE INDEX web_hook_queue_due ON web_hook_queue (next_attempt_at, id);
CREATE INDEX web_hook_queue_hook ON web_hook_queue (hook_id);
CREATE INDEX web_hook_queue_group_hook ON web_hook_queue (group_hook_id);

CREATE TABLE web_hook_logs_rebuilt (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  hook_id INTEGER REFERENCES project_hooks (id) ON DELETE CASCADE,
  group_hook_id INTEGER REFERENCES group_hooks (id) ON DELETE CASCADE,
  event TEXT NOT NULL,
  url TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  request_headers TEXT NOT NULL,
  request_body TEXT NOT NULL,
  response_status INTEGER,
  response_body TEXT,
  error TEXT,
  duration_ms INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  CHECK ((hook_id IS NULL) <> (group_hook_id IS NULL))
);
INSERT INTO web_hook_logs_rebuilt (id, hook_id, event, url, attempt, request_headers, request_body, response_status, response_body, error, duration_ms, created_at)
  SELECT id, hook_id, event, url, attempt, request_headers, request_body, response_status, response_body, error, duration_ms, created_at FROM web_hook_logs;
DELETE FROM sqlite_sequence WHERE name = 'web_hook_logs_rebuilt';
INSERT INTO sqlite_sequence (name, seq) SELECT 'web_hook_logs_rebuilt', seq FROM sqlite_sequence WHERE name = 'web_hook_logs';
DROP TABLE web_hook_logs;
ALTER TABLE web_hook_logs_rebuilt RENAME TO web_hook_logs;
CREATE INDEX web_hook_logs_hook ON web_hook_logs (hook_id, id);
CREATE INDEX web_hook_logs_group_hook ON web_hook_logs (group_hook_id, id);
CREATE INDEX web_hook_logs_created_at ON web_hook_logs (created_at);
`,
};
