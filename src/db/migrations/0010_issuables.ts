import type { Migration } from '../migrate.js';

/**
 * The issue tracker and what issuables share (DESIGN "Collaboration objects"): issues, labels,
 * milestones, notes and discussions, award emoji, subscriptions, todos, events, resource events,
 * time logs. Merge requests (next migration) reuse the polymorphic tables through their
 * `*_type` columns. Every table replicates (an INTEGER `id` key each, as db/capture.ts needs).
 *
 * Authorship: rows of a deleted user move to the ghost user unless the delete is hard; a hard
 * delete removes them through ON DELETE CASCADE on the author columns.
 */
export const issuables: Migration = {
  version: 10,
  name: 'issuables',
  sql: `
-- Per-scope counters for iids: allocated in the creating transaction, never reused (a deleted
-- issue's iid is not handed out again, which MAX(iid) + 1 would do).
CREATE TABLE internal_ids (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  usage TEXT NOT NULL CHECK (usage IN ('issues', 'merge_requests', 'project_milestones', 'group_milestones', 'epics')),
  scope_id INTEGER NOT NULL,
  last_value INTEGER NOT NULL
);
CREATE UNIQUE INDEX internal_ids_usage_scope ON internal_ids (usage, scope_id);

CREATE TABLE milestones (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER REFERENCES projects (id) ON DELETE CASCADE,
  group_id INTEGER REFERENCES namespaces (id) ON DELETE CASCADE,
  iid INTEGER NOT NULL,
  title TEXT NOT NULL,
  description TEXT,
  state TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'closed')),
  due_date TEXT,
  start_date TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  CHECK ((project_id IS NULL) <> (group_id IS NULL))
);
CREATE UNIQUE INDEX milestones_project_iid ON milestones (project_id, iid) WHERE project_id IS NOT NULL;
CREATE UNIQUE INDEX milestones_group_iid ON milestones (group_id, iid) WHERE group_id IS NOT NULL;
CREATE UNIQUE INDEX milestones_project_title ON milestones (project_id, title) WHERE project_id IS NOT NULL;
CREATE UNIQUE INDEX milestones_group_title ON milestones (group_id, title) WHERE group_id IS NOT NULL;

CREATE TABLE issues (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  iid INTEGER NOT NULL,
  title TEXT NOT NULL,
  description TEXT,
  state TEXT NOT NULL DEFAULT 'opened' CHECK (state IN ('opened', 'closed')),
  author_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  milestone_id INTEGER REFERENCES milestones (id) ON DELETE SET NULL,
  confidential INTEGER NOT NULL DEFAULT 0 CHECK (confidential IN (0, 1)),
  -- NULL until set, as GitLab shows it.
  discussion_locked INTEGER CHECK (discussion_locked IN (0, 1)),
  due_date TEXT,
  weight INTEGER,
  relative_position INTEGER,
  -- Seconds, GitLab's time tracking; the spent total is the sum of timelogs, kept here for reads.
  time_estimate INTEGER NOT NULL DEFAULT 0,
  total_time_spent INTEGER NOT NULL DEFAULT 0,
  closed_at TEXT,
  closed_by_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  moved_to_id INTEGER REFERENCES issues (id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX issues_project_iid ON issues (project_id, iid);
-- Lists: a project's issues by state, newest first (the default order), and by update time.
CREATE INDEX issues_project_state_created ON issues (project_id, state, created_at, id);
CREATE INDEX issues_project_updated ON issues (project_id, updated_at, id);
-- The default list (every state, newest first): without it a million-issue project sorts them all.
CREATE INDEX issues_project_created ON issues (project_id, created_at, id);
CREATE INDEX issues_author ON issues (author_id);
CREATE INDEX issues_milestone ON issues (milestone_id);
CREATE INDEX issues_closed_by ON issues (closed_by_id);

CREATE TABLE issue_assignees (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  issue_id INTEGER NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX issue_assignees_issue_user ON issue_assignees (issue_id, user_id);
CREATE INDEX issue_assignees_user ON issue_assignees (user_id, issue_id);

CREATE TABLE labels (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER REFERENCES projects (id) ON DELETE CASCADE,
  group_id INTEGER REFERENCES namespaces (id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  color TEXT NOT NULL,
  description TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  CHECK ((project_id IS NULL) <> (group_id IS NULL))
);
CREATE UNIQUE INDEX labels_project_title ON labels (project_id, title) WHERE project_id IS NOT NULL;
CREATE UNIQUE INDEX labels_group_title ON labels (group_id, title) WHERE group_id IS NOT NULL;
-- Label filters of lists that span projects (a group's issues, /issues) find labels by title.
CREATE INDEX labels_title ON labels (title);

-- A label's priority is per project (a group label may rank differently in each of its projects).
CREATE TABLE label_priorities (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  label_id INTEGER NOT NULL REFERENCES labels (id) ON DELETE CASCADE,
  priority INTEGER NOT NULL
);
CREATE UNIQUE INDEX label_priorities_project_label ON label_priorities (project_id, label_id);
CREATE INDEX label_priorities_label ON label_priorities (label_id);

CREATE TABLE label_links (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  label_id INTEGER NOT NULL REFERENCES labels (id) ON DELETE CASCADE,
  target_type TEXT NOT NULL CHECK (target_type IN ('Issue', 'MergeRequest', 'Epic')),
  target_id INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX label_links_target_label ON label_links (target_type, target_id, label_id);
-- Label filters walk a label's targets.
CREATE INDEX label_links_label_target ON label_links (label_id, target_type, target_id);

-- Notes on issues, merge requests, epics and commits; a discussion is the notes sharing a discussion_id.
CREATE TABLE notes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER REFERENCES projects (id) ON DELETE CASCADE,
  noteable_type TEXT NOT NULL CHECK (noteable_type IN ('Issue', 'MergeRequest', 'Epic', 'Commit')),
  noteable_id INTEGER,
  commit_id TEXT,
  author_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  body TEXT NOT NULL,
  system INTEGER NOT NULL DEFAULT 0 CHECK (system IN (0, 1)),
  discussion_id TEXT NOT NULL,
  -- NULL for a plain note, 'DiscussionNote' or 'DiffNote' for threads.
  type TEXT CHECK (type IN ('DiscussionNote', 'DiffNote')),
  resolvable INTEGER NOT NULL DEFAULT 0 CHECK (resolvable IN (0, 1)),
  resolved_at TEXT,
  resolved_by_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  -- A diff note's position (JSON), for merge requests.
  position TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX notes_noteable ON notes (noteable_type, noteable_id, created_at, id);
CREATE INDEX notes_discussion ON notes (discussion_id, created_at, id);
CREATE INDEX notes_author ON notes (author_id);
CREATE INDEX notes_project_commit ON notes (project_id, commit_id);
CREATE INDEX notes_resolved_by ON notes (resolved_by_id);

CREATE TABLE award_emoji (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  awardable_type TEXT NOT NULL CHECK (awardable_type IN ('Issue', 'MergeRequest', 'Epic', 'Note', 'Snippet')),
  awardable_id INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX award_emoji_awardable_user_name ON award_emoji (awardable_type, awardable_id, user_id, name);
CREATE INDEX award_emoji_user_name ON award_emoji (user_id, name, awardable_type, awardable_id);
CREATE INDEX award_emoji_awardable_name ON award_emoji (awardable_type, awardable_id, name);

-- An explicit choice to follow (or not) an issuable or a label; without a row, participation decides.
CREATE TABLE subscriptions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  subscribable_type TEXT NOT NULL CHECK (subscribable_type IN ('Issue', 'MergeRequest', 'Epic', 'Label')),
  subscribable_id INTEGER NOT NULL,
  -- A group label is subscribed per project; NULL elsewhere.
  project_id INTEGER REFERENCES projects (id) ON DELETE CASCADE,
  subscribed INTEGER NOT NULL CHECK (subscribed IN (0, 1)),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX subscriptions_subject_user ON subscriptions (subscribable_type, subscribable_id, user_id, IFNULL(project_id, 0));
CREATE INDEX subscriptions_user ON subscriptions (user_id);

CREATE TABLE todos (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  author_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  project_id INTEGER REFERENCES projects (id) ON DELETE CASCADE,
  group_id INTEGER REFERENCES namespaces (id) ON DELETE CASCADE,
  target_type TEXT NOT NULL CHECK (target_type IN ('Issue', 'MergeRequest', 'Epic', 'Commit')),
  target_id INTEGER,
  commit_id TEXT,
  action TEXT NOT NULL CHECK (action IN ('assigned', 'mentioned', 'build_failed', 'marked', 'approval_required', 'unmergeable', 'directly_addressed')),
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done')),
  note_id INTEGER REFERENCES notes (id) ON DELETE CASCADE,
  body TEXT NOT NULL DEFAULT '',
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX todos_user_state ON todos (user_id, state, id);
CREATE INDEX todos_target ON todos (target_type, target_id, user_id, state);
CREATE INDEX todos_author ON todos (author_id);
CREATE INDEX todos_project ON todos (project_id);
CREATE INDEX todos_group ON todos (group_id);
CREATE INDEX todos_note ON todos (note_id);

-- Contributions (GitLab's Event): what /events lists and what last_activity follows.
CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER REFERENCES projects (id) ON DELETE CASCADE,
  group_id INTEGER REFERENCES namespaces (id) ON DELETE CASCADE,
  author_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  action TEXT NOT NULL CHECK (action IN ('created', 'updated', 'closed', 'reopened', 'pushed', 'commented', 'merged', 'joined', 'left', 'destroyed', 'expired', 'approved')),
  target_type TEXT CHECK (target_type IN ('Issue', 'MergeRequest', 'Milestone', 'Note', 'DiffNote', 'DiscussionNote', 'Project', 'Epic', 'WikiPage')),
  target_id INTEGER,
  target_iid INTEGER,
  target_title TEXT,
  -- A push's payload (GitLab's push_data), JSON.
  push_data TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX events_project ON events (project_id, id);
CREATE INDEX events_author ON events (author_id, id);
CREATE INDEX events_group ON events (group_id, id);
CREATE INDEX events_target ON events (target_type, target_id);

CREATE TABLE resource_label_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  issue_id INTEGER REFERENCES issues (id) ON DELETE CASCADE,
  merge_request_id INTEGER,
  epic_id INTEGER,
  label_id INTEGER REFERENCES labels (id) ON DELETE SET NULL,
  user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  action TEXT NOT NULL CHECK (action IN ('add', 'remove')),
  created_at TEXT NOT NULL
);
CREATE INDEX resource_label_events_issue ON resource_label_events (issue_id, id);
CREATE INDEX resource_label_events_merge_request ON resource_label_events (merge_request_id, id);
CREATE INDEX resource_label_events_label ON resource_label_events (label_id);
CREATE INDEX resource_label_events_user ON resource_label_events (user_id);

CREATE TABLE resource_milestone_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  issue_id INTEGER REFERENCES issues (id) ON DELETE CASCADE,
  merge_request_id INTEGER,
  milestone_id INTEGER REFERENCES milestones (id) ON DELETE SET NULL,
  user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  action TEXT NOT NULL CHECK (action IN ('add', 'remove')),
  state TEXT NOT NULL CHECK (state IN ('opened', 'closed', 'merged', 'locked')),
  created_at TEXT NOT NULL
);
CREATE INDEX resource_milestone_events_issue ON resource_milestone_events (issue_id, id);
CREATE INDEX resource_milestone_events_merge_request ON resource_milestone_events (merge_request_id, id);
CREATE INDEX resource_milestone_events_milestone ON resource_milestone_events (milestone_id);
CREATE INDEX resource_milestone_events_user ON resource_milestone_events (user_id);

CREATE TABLE resource_state_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  issue_id INTEGER REFERENCES issues (id) ON DELETE CASCADE,
  merge_request_id INTEGER,
  user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  state TEXT NOT NULL CHECK (state IN ('opened', 'closed', 'reopened', 'merged', 'locked')),
  created_at TEXT NOT NULL
);
CREATE INDEX resource_state_events_issue ON resource_state_events (issue_id, id);
CREATE INDEX resource_state_events_merge_request ON resource_state_events (merge_request_id, id);
CREATE INDEX resource_state_events_user ON resource_state_events (user_id);

CREATE TABLE timelogs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  issue_id INTEGER REFERENCES issues (id) ON DELETE CASCADE,
  merge_request_id INTEGER,
  user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  time_spent INTEGER NOT NULL,
  spent_at TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX timelogs_issue ON timelogs (issue_id);
CREATE INDEX timelogs_merge_request ON timelogs (merge_request_id);
CREATE INDEX timelogs_user ON timelogs (user_id);

-- What created an issue (GitLab's user_agent_detail, admin only: spam review).
CREATE TABLE user_agent_details (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  subject_type TEXT NOT NULL CHECK (subject_type IN ('Issue', 'Snippet')),
  subject_id INTEGER NOT NULL,
  user_agent TEXT NOT NULL,
  ip_address TEXT NOT NULL,
  submitted INTEGER NOT NULL DEFAULT 0 CHECK (submitted IN (0, 1)),
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX user_agent_details_subject ON user_agent_details (subject_type, subject_id);

-- GitLab keeps open_issues_count as a counter; counting a million rows per project read would not do.
ALTER TABLE projects ADD COLUMN open_issues_count INTEGER NOT NULL DEFAULT 0;
`,
};
