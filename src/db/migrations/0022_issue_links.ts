import type { Migration } from '../migrate.js';

/**
 * Issue links (GitLab's IssueLink: relates_to and blocks; `is_blocked_by` is stored as `blocks`
 * with source and target swapped, as GitLab 17 does) and resource_weight_events (an issue's
 * weight set, changed or removed). Both replicate (db/capture.ts) and follow their issues through
 * foreign keys.
 */
export const issueLinks: Migration = {
  version: 22,
  name: 'issue_links',
  sql: `
CREATE TABLE issue_links (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  source_id INTEGER NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  target_id INTEGER NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  link_type TEXT NOT NULL DEFAULT 'relates_to' CHECK (link_type IN ('relates_to', 'blocks')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  CHECK (source_id <> target_id)
);
-- One link per pair and direction (GitLab's uniqueness of source in the scope of target); the
-- opposite direction is refused by the service.
CREATE UNIQUE INDEX issue_links_source_target ON issue_links (source_id, target_id);
CREATE INDEX issue_links_target ON issue_links (target_id, link_type);

CREATE TABLE resource_weight_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  issue_id INTEGER NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  -- The weight after the change; NULL when it was removed.
  weight INTEGER,
  created_at TEXT NOT NULL
);
CREATE INDEX resource_weight_events_issue ON resource_weight_events (issue_id, id);
CREATE INDEX resource_weight_events_user ON resource_weight_events (user_id);
`,
};
