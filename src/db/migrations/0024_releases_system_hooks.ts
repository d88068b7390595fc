import type { Migration } from '../migrate.js';

/**
 * GitLab 17's releases and system hooks. A release gains its name, release time and commit, its
 * asset links and its milestones (both replicate, INTEGER `id` keys); project and group hooks gain
 * `releases_events`. System hooks (admin-wide, replicated like every hook table) are delivered by
 * the same site-local queue and log, rebuilt so a delivery names exactly one of a project hook, a
 * group hook or a system hook; rows keep their ids and the AUTOINCREMENT sequences carry over.
 */
export const releasesSystemHooks: Migration = {
  version: 24,
  name: 'releases_system_hooks',
  sql: `
ALTER TABLE releases ADD COLUMN name TEXT;
ALTER TABLE releases ADD COLUMN released_at TEXT;
-- The commit the tag pointed at when the release was made (GitLab's releases.sha).
ALTER TABLE releases ADD COLUMN sha TEXT;
UPDATE releases SET name = tag, released_at = created_at;
CREATE INDEX releases_project_released ON releases (project_id, released_at, id);
CREATE INDEX releases_project_created ON releases (project_id, created_at, id);

CREATE TABLE release_links (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  release_id INTEGER NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  url TEXT NOT NULL,
  -- The direct asset path (/-/releases/<tag>/downloads<filepath>), or null.
  filepath TEXT,
  link_type TEXT NOT NULL DEFAULT 'other' CHECK (link_type IN ('other', 'runbook', 'image', 'package')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX release_links_name ON release_links (release_id, name);
CREATE UNIQUE INDEX release_links_url ON release_links (release_id, url);
CREATE UNIQUE INDEX release_links_filepath ON release_links (release_id, filepath) WHERE filepath IS NOT NULL;

CREATE TABLE release_milestones (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  release_id INTEGER NOT NULL REFERENCES releases (id) ON DELETE CASCADE,
  milestone_id INTEGER NOT NULL REFERENCES milestones (id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX release_milestones_pair ON release_milestones (release_id, milestone_id);
CREATE INDEX release_milestones_milestone ON release_milestones (milestone_id);

ALTER TABLE project_hooks ADD COLUMN releases_events INTEGER NOT NULL DEFAULT 0;
ALTER TABLE group_hooks ADD COLUMN releases_events INTEGER NOT NULL DEFAULT 0;

-- GitLab's SystemHook defaults: repository updates on, pushes, tag pushes and merge requests off.
-- The events every system hook receives (project_create, user_create, ...) have no flag.
CREATE TABLE system_hooks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  url TEXT NOT NULL,
  name TEXT,
  description TEXT,
  token TEXT,
  push_events INTEGER NOT NULL DEFAULT 0,
  tag_push_events INTEGER NOT NULL DEFAULT 0,
  merge_requests_events INTEGER NOT NULL DEFAULT 0,
  repository_update_events INTEGER NOT NULL DEFAULT 1,
  enable_ssl_verification INTEGER NOT NULL DEFAULT 1,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE web_hook_queue_rebuilt (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  hook_id INTEGER REFERENCES project_hooks (id) ON DELETE CASCADE,
  group_hook_id INTEGER REFERENCES group_hooks (id) ON DELETE CASCADE,
  system_hook_id INTEGER REFERENCES system_hooks (id) ON DELETE CASCADE,
  event TEXT NOT NULL,
  body TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  CHECK ((hook_id IS NOT NULL) + (group_hook_id IS NOT NULL) + (system_hook_id IS NOT NULL) = 1)
);
INSERT INTO web_hook_queue_rebuilt (id, hook_id, group_hook_id, event, body, attempts, next_attempt_at, created_at)
  SELECT id, hook_id, group_hook_id, event, body, attempts, next_attempt_at, created_at FROM web_hook_queue;
DELETE FROM sqlite_sequence WHERE name = 'web_hook_queue_rebuilt';
INSERT INTO sqlite_sequence (name, seq) SELECT 'web_hook_queue_rebuilt', seq FROM sqlite_sequence WHERE name = 'web_hook_queue';
DROP TABLE web_hook_queue;
ALTER TABLE web_hook_queue_rebuilt RENAME TO web_hook_queue;
CREATE INDEX web_hook_queue_due ON web_hook_queue (next_attempt_at, id);
CREATE INDEX web_hook_queue_hook ON web_hook_queue (hook_id);
CREATE INDEX web_hook_queue_group_hook ON web_hook_queue (group_hook_id);
CREATE INDEX web_hook_queue_system_hook ON web_hook_queue (system_hook_id);

CREATE TABLE web_hook_logs_rebuilt (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  hook_id INTEGER REFERENCES project_hooks (id) ON DELETE CASCADE,
  group_hook_id INTEGER REFERENCES group_hooks (id) ON DELETE CASCADE,
  system_hook_id INTEGER REFERENCES system_hooks (id) ON DELETE CASCADE,
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
  CHECK ((hook_id IS NOT NULL) + (group_hook_id IS NOT NULL) + (system_hook_id IS NOT NULL) = 1)
);
INSERT INTO web_hook_logs_rebuilt (id, hook_id, group_hook_id, event, url, attempt, request_headers, request_body, response_status, response_body, error, duration_ms, created_at)
  SELECT id, hook_id, group_hook_id, event, url, attempt, request_headers, request_body, response_status, response_body, error, duration_ms, created_at FROM web_hook_logs;
DELETE FROM sqlite_sequence WHERE name = 'web_hook_logs_rebuilt';
INSERT INTO sqlite_sequence (name, seq) SELECT 'web_hook_logs_rebuilt', seq FROM sqlite_sequence WHERE name = 'web_hook_logs';
DROP TABLE web_hook_logs;
ALTER TABLE web_hook_logs_rebuilt RENAME TO web_hook_logs;
CREATE INDEX web_hook_logs_hook ON web_hook_logs (hook_id, id);
CREATE INDEX web_hook_logs_group_hook ON web_hook_logs (group_hook_id, id);
CREATE INDEX web_hook_logs_system_hook ON web_hook_logs (system_hook_id, id);
CREATE INDEX web_hook_logs_created_at ON web_hook_logs (created_at);
`,
};
