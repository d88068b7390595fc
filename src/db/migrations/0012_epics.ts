import type { Migration } from '../migrate.js';

/**
 * Epics and their ordered issues (issue 16, items 4-5). An epic belongs to a group, its iid comes
 * from internal_ids (usage 'epics', per group, never reused); labels, notes and award emoji reach
 * it through the tracker's polymorphic tables ('Epic'). An issue is in at most one epic; its place
 * there is a sparse integer `relative_position`, so a move rewrites one row (see
 * services/planning/epic-positions.ts). Both tables replicate (INTEGER `id` keys).
 */
export const epics: Migration = {
  version: 12,
  name: 'epics',
  sql: `
CREATE TABLE epics (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  group_id INTEGER NOT NULL REFERENCES namespaces (id) ON DELETE CASCADE,
  iid INTEGER NOT NULL,
  title TEXT NOT NULL,
  description TEXT,
  author_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  state TEXT NOT NULL DEFAULT 'opened' CHECK (state IN ('opened', 'closed')),
  start_date TEXT,
  end_date TEXT,
  closed_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX epics_group_iid ON epics (group_id, iid);
-- Lists: a group's epics newest first (created_at or updated_at), by state.
CREATE INDEX epics_group_created ON epics (group_id, created_at, id);
CREATE INDEX epics_group_updated ON epics (group_id, updated_at, id);
CREATE INDEX epics_author ON epics (author_id);

CREATE TABLE epic_issues (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  epic_id INTEGER NOT NULL REFERENCES epics (id) ON DELETE CASCADE,
  -- An issue leaves its epic when it is deleted (the foreign key), at most one epic per issue.
  issue_id INTEGER NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  relative_position INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX epic_issues_issue ON epic_issues (issue_id);
CREATE INDEX epic_issues_epic_position ON epic_issues (epic_id, relative_position, id);
`,
};
