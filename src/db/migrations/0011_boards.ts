import type { Migration } from '../migrate.js';

/**
 * Issue boards (SPEC: Issue boards; GITLAB-NOTES 2.4): boards of a project or of a group, their
 * scoping (milestone, assignee, labels, weight, as GitLab ee has them) and their lists. Every
 * table replicates (an INTEGER `id` key each, as db/capture.ts needs).
 */
export const boards: Migration = {
  version: 11,
  name: 'boards',
  sql: `
CREATE TABLE boards (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER REFERENCES projects (id) ON DELETE CASCADE,
  group_id INTEGER REFERENCES namespaces (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  milestone_id INTEGER REFERENCES milestones (id) ON DELETE SET NULL,
  assignee_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  weight INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  CHECK ((project_id IS NULL) <> (group_id IS NULL))
);
CREATE INDEX boards_project ON boards (project_id, id) WHERE project_id IS NOT NULL;
CREATE INDEX boards_group ON boards (group_id, id) WHERE group_id IS NOT NULL;
CREATE INDEX boards_milestone ON boards (milestone_id);
CREATE INDEX boards_assignee ON boards (assignee_id);

-- The labels a board is scoped to (ee), not its lists.
CREATE TABLE board_labels (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  board_id INTEGER NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
  label_id INTEGER NOT NULL REFERENCES labels (id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX board_labels_board_label ON board_labels (board_id, label_id);
CREATE INDEX board_labels_label ON board_labels (label_id);

-- A board's lists: its hidden backlog and closed lists (no label, no position) and its label
-- lists, positioned 0, 1, 2... without gaps (a move shifts the lists between, a delete renumbers).
-- Positions are not unique in the schema: a move rewrites several rows in one statement.
CREATE TABLE board_lists (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  board_id INTEGER NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
  list_type TEXT NOT NULL CHECK (list_type IN ('backlog', 'label', 'closed')),
  label_id INTEGER REFERENCES labels (id) ON DELETE CASCADE,
  position INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  CHECK ((list_type = 'label') = (label_id IS NOT NULL)),
  CHECK ((list_type = 'label') = (position IS NOT NULL))
);
CREATE INDEX board_lists_board_position ON board_lists (board_id, position, id);
CREATE UNIQUE INDEX board_lists_board_label ON board_lists (board_id, label_id) WHERE label_id IS NOT NULL;
CREATE UNIQUE INDEX board_lists_board_hidden ON board_lists (board_id, list_type) WHERE list_type <> 'label';
CREATE INDEX board_lists_label ON board_lists (label_id);
`,
};
