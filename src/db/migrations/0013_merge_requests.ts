import type { Migration } from '../migrate.js';

/**
 * Merge requests (issue 15): the request itself, its diff versions as data (GitLab's
 * merge_request_diffs, merge_request_diff_commits, merge_request_diff_files), approvals and
 * approvers (ee), and the issues a merge would close. Labels, notes, award emoji, subscriptions,
 * todos, events, resource events and timelogs reach a merge request through the tracker's
 * polymorphic tables ('MergeRequest', or their merge_request_id columns). The iid comes from
 * internal_ids (usage 'merge_requests', scoped by the target project). Every table replicates
 * (INTEGER `id` keys), so a secondary serves versions and changes from its own database.
 *
 * Authorship follows the tracker: rows of a deleted user move to the ghost user unless the delete
 * is hard; a hard delete removes them through ON DELETE CASCADE on author_id.
 */
export const mergeRequests: Migration = {
  version: 13,
  name: 'merge_requests',
  sql: `
CREATE TABLE merge_requests (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  target_project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  iid INTEGER NOT NULL,
  -- The fork a merge request comes from; NULL once that fork is deleted (its commits stay
  -- reachable through refs/merge-requests/<iid>/head in the target repository).
  source_project_id INTEGER REFERENCES projects (id) ON DELETE SET NULL,
  source_branch TEXT NOT NULL,
  target_branch TEXT NOT NULL,
  title TEXT NOT NULL,
  description TEXT,
  state TEXT NOT NULL DEFAULT 'opened' CHECK (state IN ('opened', 'closed', 'merged', 'locked')),
  author_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  assignee_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  milestone_id INTEGER REFERENCES milestones (id) ON DELETE SET NULL,
  -- Computed on the primary in the background (never on a read); 'unchecked' until then and
  -- again whenever the source or target branch moves.
  merge_status TEXT NOT NULL DEFAULT 'unchecked' CHECK (merge_status IN ('unchecked', 'checking', 'can_be_merged', 'cannot_be_merged', 'cannot_be_merged_recheck')),
  -- The heads the stored merge_status was computed on (an accept re-checks against current heads).
  merge_status_source_sha TEXT,
  merge_status_target_sha TEXT,
  merge_error TEXT,
  -- The source branch's head the merge request shows (GitLab's diff_head_sha), kept with the
  -- latest diff version; the merge base and target head of that version.
  head_sha TEXT,
  base_sha TEXT,
  start_sha TEXT,
  latest_merge_request_diff_id INTEGER,
  merge_commit_sha TEXT,
  squash INTEGER NOT NULL DEFAULT 0 CHECK (squash IN (0, 1)),
  squash_commit_sha TEXT,
  -- The merge result written to refs/merge-requests/<iid>/merge, and the heads it was made of.
  merge_ref_sha TEXT,
  rebase_commit_sha TEXT,
  rebase_in_progress INTEGER NOT NULL DEFAULT 0 CHECK (rebase_in_progress IN (0, 1)),
  merge_when_pipeline_succeeds INTEGER NOT NULL DEFAULT 0 CHECK (merge_when_pipeline_succeeds IN (0, 1)),
  -- Who set merge_when_pipeline_succeeds (and so who merges when the pipeline succeeds).
  merge_user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  -- JSON: what an accept deferred to the pipeline asked for (merge_commit_message,
  -- squash_commit_message, should_remove_source_branch, sha).
  merge_params TEXT,
  head_pipeline_id INTEGER REFERENCES ci_pipelines (id) ON DELETE SET NULL,
  merged_by_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  merged_at TEXT,
  closed_by_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  closed_at TEXT,
  -- NULL until the author chooses (GitLab shows null); force_ is the author's "remove source branch" at create/update.
  should_remove_source_branch INTEGER CHECK (should_remove_source_branch IN (0, 1)),
  force_remove_source_branch INTEGER NOT NULL DEFAULT 0 CHECK (force_remove_source_branch IN (0, 1)),
  allow_maintainer_to_push INTEGER NOT NULL DEFAULT 0 CHECK (allow_maintainer_to_push IN (0, 1)),
  -- NULL until set, as GitLab shows it.
  discussion_locked INTEGER CHECK (discussion_locked IN (0, 1)),
  -- ee: approvals this merge request needs; NULL inherits the target project's approvals_before_merge.
  approvals_before_merge INTEGER,
  time_estimate INTEGER NOT NULL DEFAULT 0,
  total_time_spent INTEGER NOT NULL DEFAULT 0,
  last_edited_at TEXT,
  last_edited_by_id INTEGER REFERENCES users (id) ON DELETE SET NULL,
  -- Bumped by every write, for optimistic checks of concurrent writers (merge versus update).
  lock_version INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX merge_requests_target_iid ON merge_requests (target_project_id, iid);
-- One open merge request per source and target branch pair (GitLab's validation, as a 409).
CREATE UNIQUE INDEX merge_requests_open_pair ON merge_requests (IFNULL(source_project_id, 0), source_branch, target_project_id, target_branch) WHERE state = 'opened';
-- Lists page in SQL: a project's merge requests newest first, by state, and by update time.
CREATE INDEX merge_requests_target_created ON merge_requests (target_project_id, created_at, id);
CREATE INDEX merge_requests_target_state_created ON merge_requests (target_project_id, state, created_at, id);
CREATE INDEX merge_requests_target_updated ON merge_requests (target_project_id, updated_at, id);
CREATE INDEX merge_requests_target_state_updated ON merge_requests (target_project_id, state, updated_at, id);
-- A push to a branch finds the merge requests it moves, as their source or as their target.
CREATE INDEX merge_requests_source_branch ON merge_requests (source_project_id, source_branch, state);
CREATE INDEX merge_requests_target_branch ON merge_requests (target_project_id, target_branch, state);
-- The global list: created by me (the default scope), assigned to me.
CREATE INDEX merge_requests_author_created ON merge_requests (author_id, created_at, id);
CREATE INDEX merge_requests_assignee_created ON merge_requests (assignee_id, created_at, id);
CREATE INDEX merge_requests_milestone ON merge_requests (milestone_id);
CREATE INDEX merge_requests_merge_user ON merge_requests (merge_user_id);
CREATE INDEX merge_requests_merged_by ON merge_requests (merged_by_id);
CREATE INDEX merge_requests_closed_by ON merge_requests (closed_by_id);
CREATE INDEX merge_requests_last_edited_by ON merge_requests (last_edited_by_id);
CREATE INDEX merge_requests_head_pipeline ON merge_requests (head_pipeline_id);
-- Merge when pipeline succeeds: a pipeline's status change finds the flagged requests on its sha.
CREATE INDEX merge_requests_mwps_head ON merge_requests (source_project_id, head_sha) WHERE merge_when_pipeline_succeeds = 1;

-- One diff version per push to the source branch (and one at creation).
CREATE TABLE merge_request_diffs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  merge_request_id INTEGER NOT NULL REFERENCES merge_requests (id) ON DELETE CASCADE,
  -- collected: every file stored; overflow: over the file or line limits, files up to the limit
  -- stored; empty: no changes; without_files: the files were not stored.
  state TEXT NOT NULL CHECK (state IN ('collected', 'overflow', 'empty', 'without_files')),
  base_commit_sha TEXT,
  start_commit_sha TEXT,
  head_commit_sha TEXT,
  -- The number of changed files as GitLab shows it: a string, '1000+' over the cap.
  real_size TEXT,
  commits_count INTEGER NOT NULL DEFAULT 0,
  files_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX merge_request_diffs_merge_request ON merge_request_diffs (merge_request_id, id);

CREATE TABLE merge_request_diff_commits (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  merge_request_diff_id INTEGER NOT NULL REFERENCES merge_request_diffs (id) ON DELETE CASCADE,
  -- 0 is the newest commit (the order the commits endpoint answers in).
  relative_order INTEGER NOT NULL,
  sha TEXT NOT NULL,
  parent_ids TEXT NOT NULL DEFAULT '[]',
  author_name TEXT,
  author_email TEXT,
  authored_date TEXT,
  committer_name TEXT,
  committer_email TEXT,
  committed_date TEXT,
  message TEXT NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX merge_request_diff_commits_diff_order ON merge_request_diff_commits (merge_request_diff_id, relative_order);
CREATE INDEX merge_request_diff_commits_sha ON merge_request_diff_commits (sha);

CREATE TABLE merge_request_diff_files (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  merge_request_diff_id INTEGER NOT NULL REFERENCES merge_request_diffs (id) ON DELETE CASCADE,
  relative_order INTEGER NOT NULL,
  new_file INTEGER NOT NULL DEFAULT 0 CHECK (new_file IN (0, 1)),
  renamed_file INTEGER NOT NULL DEFAULT 0 CHECK (renamed_file IN (0, 1)),
  deleted_file INTEGER NOT NULL DEFAULT 0 CHECK (deleted_file IN (0, 1)),
  -- A file whose diff is over the per-file limit keeps no text (GitLab's too_large / collapsed).
  too_large INTEGER NOT NULL DEFAULT 0 CHECK (too_large IN (0, 1)),
  collapsed INTEGER NOT NULL DEFAULT 0 CHECK (collapsed IN (0, 1)),
  binary INTEGER NOT NULL DEFAULT 0 CHECK (binary IN (0, 1)),
  a_mode TEXT NOT NULL,
  b_mode TEXT NOT NULL,
  old_path TEXT NOT NULL,
  new_path TEXT NOT NULL,
  diff TEXT NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX merge_request_diff_files_diff_order ON merge_request_diff_files (merge_request_diff_id, relative_order);

-- ee: who approved; reset by a push when the project says so.
CREATE TABLE merge_request_approvals (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  merge_request_id INTEGER NOT NULL REFERENCES merge_requests (id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX merge_request_approvals_merge_request_user ON merge_request_approvals (merge_request_id, user_id);
CREATE INDEX merge_request_approvals_user ON merge_request_approvals (user_id);

-- ee: suggested approvers of a project or a merge request, users and groups (GitLab's approvers, approver_groups).
CREATE TABLE approvers (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  target_type TEXT NOT NULL CHECK (target_type IN ('Project', 'MergeRequest')),
  target_id INTEGER NOT NULL,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX approvers_target_user ON approvers (target_type, target_id, user_id);
CREATE INDEX approvers_user ON approvers (user_id);

CREATE TABLE approver_groups (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  target_type TEXT NOT NULL CHECK (target_type IN ('Project', 'MergeRequest')),
  target_id INTEGER NOT NULL,
  group_id INTEGER NOT NULL REFERENCES namespaces (id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX approver_groups_target_group ON approver_groups (target_type, target_id, group_id);
CREATE INDEX approver_groups_group ON approver_groups (group_id);

-- The issues a merge request would close (closing patterns in its title, description and commits).
CREATE TABLE merge_requests_closing_issues (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  merge_request_id INTEGER NOT NULL REFERENCES merge_requests (id) ON DELETE CASCADE,
  issue_id INTEGER NOT NULL REFERENCES issues (id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX merge_requests_closing_issues_pair ON merge_requests_closing_issues (merge_request_id, issue_id);
CREATE INDEX merge_requests_closing_issues_issue ON merge_requests_closing_issues (issue_id);

-- Project settings of merging (ee approvals; GitLab's merge methods).
ALTER TABLE projects ADD COLUMN reset_approvals_on_push INTEGER NOT NULL DEFAULT 1;
ALTER TABLE projects ADD COLUMN disable_overriding_approvers_per_merge_request INTEGER NOT NULL DEFAULT 0;
ALTER TABLE projects ADD COLUMN merge_requests_author_approval INTEGER NOT NULL DEFAULT 0;
ALTER TABLE projects ADD COLUMN merge_method TEXT NOT NULL DEFAULT 'merge' CHECK (merge_method IN ('merge', 'rebase_merge', 'ff'));
-- Every merge request of the project as target, kept by create and delete (a state change leaves
-- it): the total of the default list without counting up to 10,000 rows per read.
ALTER TABLE projects ADD COLUMN merge_requests_count INTEGER NOT NULL DEFAULT 0;
`,
};
