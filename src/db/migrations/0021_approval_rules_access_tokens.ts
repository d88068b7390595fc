import type { Migration } from '../migrate.js';

/**
 * Approval rules (ee; issue 25) and project and group access tokens (issue 26, item 7).
 *
 * A project's rules (GitLab's approval_project_rules) name who must approve and how many: users,
 * groups (their direct members) and the protected branches the rule is limited to. A merge
 * request may carry its own rules (approval_merge_request_rules), which then replace the
 * project's for it; `approval_project_rule_id` remembers the project rule one was copied from.
 * The member tables are one per kind with foreign keys, so a deleted user, group, branch or rule
 * takes its rows with it.
 *
 * An access token belongs to a bot user (`user_type` 'project_bot', as GitLab names both kinds)
 * that is a member of its project or group; the token itself is a personal access token of the
 * bot. Every table replicates.
 */
export const approvalRulesAccessTokens: Migration = {
  version: 21,
  name: 'approval_rules_access_tokens',
  sql: `
ALTER TABLE users ADD COLUMN user_type TEXT NOT NULL DEFAULT 'human' CHECK (user_type IN ('human', 'project_bot'));

CREATE TABLE approval_project_rules (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  approvals_required INTEGER NOT NULL DEFAULT 0 CHECK (approvals_required BETWEEN 0 AND 100),
  rule_type TEXT NOT NULL DEFAULT 'regular' CHECK (rule_type IN ('regular', 'any_approver')),
  applies_to_all_protected_branches INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX approval_project_rules_name ON approval_project_rules (project_id, name);

CREATE TABLE approval_project_rules_users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  rule_id INTEGER NOT NULL REFERENCES approval_project_rules (id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX approval_project_rules_users_unique ON approval_project_rules_users (rule_id, user_id);

CREATE TABLE approval_project_rules_groups (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  rule_id INTEGER NOT NULL REFERENCES approval_project_rules (id) ON DELETE CASCADE,
  group_id INTEGER NOT NULL REFERENCES namespaces (id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX approval_project_rules_groups_unique ON approval_project_rules_groups (rule_id, group_id);

CREATE TABLE approval_project_rules_protected_branches (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  rule_id INTEGER NOT NULL REFERENCES approval_project_rules (id) ON DELETE CASCADE,
  protected_branch_id INTEGER NOT NULL REFERENCES protected_branches (id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX approval_project_rules_protected_branches_unique ON approval_project_rules_protected_branches (rule_id, protected_branch_id);

CREATE TABLE approval_merge_request_rules (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  merge_request_id INTEGER NOT NULL REFERENCES merge_requests (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  approvals_required INTEGER NOT NULL DEFAULT 0 CHECK (approvals_required BETWEEN 0 AND 100),
  rule_type TEXT NOT NULL DEFAULT 'regular' CHECK (rule_type IN ('regular', 'any_approver')),
  approval_project_rule_id INTEGER REFERENCES approval_project_rules (id) ON DELETE SET NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX approval_merge_request_rules_name ON approval_merge_request_rules (merge_request_id, name);

CREATE TABLE approval_merge_request_rules_users (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  rule_id INTEGER NOT NULL REFERENCES approval_merge_request_rules (id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX approval_merge_request_rules_users_unique ON approval_merge_request_rules_users (rule_id, user_id);

CREATE TABLE approval_merge_request_rules_groups (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  rule_id INTEGER NOT NULL REFERENCES approval_merge_request_rules (id) ON DELETE CASCADE,
  group_id INTEGER NOT NULL REFERENCES namespaces (id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX approval_merge_request_rules_groups_unique ON approval_merge_request_rules_groups (rule_id, group_id);
`,
};
