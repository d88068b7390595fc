import type { Migration } from '../migrate.js';

/**
 * Group-to-group shares (GitLab's group_group_links: members of the shared-with group get up to
 * `group_access` on the shared group, its subgroups and their projects) and bans: a banned user
 * is kept `blocked` in users.state, so every sign-in and token check refuses them, and
 * `banned_at` makes them show as `banned`; LDAP group links by filter. All replicate like every table.
 */
export const groupSharesBans: Migration = {
  version: 23,
  name: 'group_shares_bans_ldap_filters',
  sql: `
CREATE TABLE group_group_links (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  shared_group_id INTEGER NOT NULL REFERENCES namespaces (id) ON DELETE CASCADE,
  shared_with_group_id INTEGER NOT NULL REFERENCES namespaces (id) ON DELETE CASCADE,
  group_access INTEGER NOT NULL CHECK (group_access IN (10, 20, 30, 40, 50)),
  expires_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX group_group_links_shared ON group_group_links (shared_group_id, shared_with_group_id);
-- Access checks start from the user's groups and look for what they were shared into.
CREATE INDEX group_group_links_shared_with ON group_group_links (shared_with_group_id);

-- LDAP group links by filter as well as by cn (GitLab EE): a filter link stores cn '' (the column
-- of 0005 is NOT NULL), so each kind is unique per group and provider by its own partial index.
ALTER TABLE ldap_group_links ADD COLUMN filter TEXT;
DROP INDEX ldap_group_links_namespace_provider_cn;
CREATE UNIQUE INDEX ldap_group_links_namespace_provider_cn ON ldap_group_links (namespace_id, provider, cn) WHERE filter IS NULL;
CREATE UNIQUE INDEX ldap_group_links_namespace_provider_filter ON ldap_group_links (namespace_id, provider, filter) WHERE filter IS NOT NULL;

-- When the user was banned; a banned user's state stays 'blocked' (the CHECK of 0001 cannot change).
ALTER TABLE users ADD COLUMN banned_at TEXT;
`,
};
