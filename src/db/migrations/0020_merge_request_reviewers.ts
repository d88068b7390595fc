import type { Migration } from '../migrate.js';

/**
 * GitLab 17's merge request additions: reviewers (a user asked to review, with the review state),
 * `prepared_at` (when the first diff version was recorded) and `merge_after` (not mergeable
 * before). Todos take `review_requested`: SQLite cannot change a CHECK, so the table is rebuilt
 * with its rows, ids and indexes (the capture triggers are recreated at boot).
 */
export const mergeRequestReviewers: Migration = {
  version: 20,
  name: 'merge_request_reviewers',
  sql: `
CREATE TABLE merge_request_reviewers (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  merge_request_id INTEGER NOT NULL REFERENCES merge_requests (id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  state TEXT NOT NULL DEFAULT 'unreviewed' CHECK (state IN ('unreviewed', 'reviewed', 'requested_changes', 'approved', 'unapproved', 'review_started')),
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX merge_request_reviewers_mr_user ON merge_request_reviewers (merge_request_id, user_id);
CREATE INDEX merge_request_reviewers_user ON merge_request_reviewers (user_id, merge_request_id);

ALTER TABLE merge_requests ADD COLUMN prepared_at TEXT;
ALTER TABLE merge_requests ADD COLUMN merge_after TEXT;
UPDATE merge_requests SET prepared_at = (SELECT min(d.created_at) FROM merge_request_diffs d WHERE d.merge_request_id = merge_requests.id);

CREATE TABLE todos_new (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  author_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  project_id INTEGER REFERENCES projects (id) ON DELETE CASCADE,
  group_id INTEGER REFERENCES namespaces (id) ON DELETE CASCADE,
  target_type TEXT NOT NULL CHECK (target_type IN ('Issue', 'MergeRequest', 'Epic', 'Commit')),
  target_id INTEGER,
  commit_id TEXT,
  action TEXT NOT NULL CHECK (action IN ('assigned', 'mentioned', 'build_failed', 'marked', 'approval_required', 'unmergeable', 'directly_addressed', 'review_requested')),
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done')),
  note_id INTEGER REFERENCES notes (id) ON DELETE CASCADE,
  body TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
INSERT INTO todos_new SELECT id, user_id, author_id, project_id, group_id, target_type, target_id, commit_id, action, state, note_id, body, created_at, updated_at FROM todos;
DROP TABLE todos;
ALTER TABLE todos_new RENAME TO todos;
CREATE INDEX todos_user_state ON todos (user_id, state, id);
CREATE INDEX todos_target ON todos (target_type, target_id, user_id, state);
CREATE INDEX todos_author ON todos (author_id);
CREATE INDEX todos_project ON todos (project_id);
CREATE INDEX todos_group ON todos (group_id);
CREATE INDEX todos_note ON todos (note_id);
`,
};
