import type { Migration } from '../migrate.js';

/**
 * Project webhooks, their delivery queue and their delivery log. project_hooks replicates like
 * every table, so a secondary can show a project's hooks; web_hook_queue and web_hook_logs are
 * site-local (db/local-tables.ts): only the primary delivers.
 */
export const hooks: Migration = {
  version: 4,
  name: 'hooks',
  sql: `
-- token is the secret sent as X-Gitlab-Token, kept as given because receivers compare it; the API
-- never returns it. One flag per event kind (SPEC: Events).
CREATE TABLE project_hooks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
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
-- Lists page by (project_id, id); firing an event reads the same index.
CREATE INDEX project_hooks_project ON project_hooks (project_id, id);

-- Deliveries not yet done: written with the change that fired them (a rolled-back change fires
-- nothing), deleted once delivered or given up, so a restart resumes them. attempts counts the
-- attempts made; next_attempt_at is epoch milliseconds.
CREATE TABLE web_hook_queue (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  hook_id INTEGER NOT NULL REFERENCES project_hooks (id) ON DELETE CASCADE,
  event TEXT NOT NULL,
  body TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX web_hook_queue_due ON web_hook_queue (next_attempt_at, id);
CREATE INDEX web_hook_queue_hook ON web_hook_queue (hook_id);

-- One row per delivery attempt. Bodies are truncated (services/hooks/deliver.ts), the token
-- header is redacted. Deleting a hook deletes its log, as in GitLab.
CREATE TABLE web_hook_logs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  hook_id INTEGER NOT NULL REFERENCES project_hooks (id) ON DELETE CASCADE,
  event TEXT NOT NULL,
  url TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  request_headers TEXT NOT NULL,
  request_body TEXT NOT NULL,
  response_status INTEGER,
  response_body TEXT,
  error TEXT,
  duration_ms INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX web_hook_logs_hook ON web_hook_logs (hook_id, id);
CREATE INDEX web_hook_logs_created_at ON web_hook_logs (created_at);
`,
};
