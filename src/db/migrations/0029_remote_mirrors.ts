import type { Migration } from '../migrate.js';

/**
 * Push mirrors (GitLab's remote_mirrors, issue 26 item 8). The row is the mirror and its queue
 * entry at once: `next_attempt_at` (epoch ms) is set when a push or a sync asks for an update and
 * cleared when the primary's worker takes it (services/remote-mirrors/worker.ts), so a restart or
 * a promoted secondary resumes what was asked. `failures` counts failed attempts in a row, for the
 * backoff. `url` keeps the credentials the client gave: no answer and no log line shows them.
 */
export const remoteMirrors: Migration = {
  version: 29,
  name: 'remote_mirrors',
  sql: `
CREATE TABLE remote_mirrors (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  url TEXT NOT NULL,
  enabled INTEGER NOT NULL DEFAULT 0,
  only_protected_branches INTEGER NOT NULL DEFAULT 0,
  keep_divergent_refs INTEGER NOT NULL DEFAULT 0,
  auth_method TEXT NOT NULL DEFAULT 'password',
  mirror_branch_regex TEXT,
  update_status TEXT NOT NULL DEFAULT 'none' CHECK (update_status IN ('none', 'scheduled', 'started', 'finished', 'failed', 'to_retry')),
  last_update_at TEXT,
  last_update_started_at TEXT,
  last_successful_update_at TEXT,
  last_error TEXT,
  next_attempt_at INTEGER,
  failures INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX remote_mirrors_project ON remote_mirrors (project_id, id);
CREATE INDEX remote_mirrors_due ON remote_mirrors (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
`,
};
