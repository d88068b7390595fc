import type { Migration } from '../migrate.js';

/**
 * LDAP group links (SPEC: Groups, ldap_group_links): each names an LDAP group by cn under one
 * provider, and its members get `group_access` on the group at the next sync. Replicated like
 * every table, so a secondary lists the same links.
 */
export const ldap: Migration = {
  version: 5,
  name: 'ldap',
  sql: `
CREATE TABLE ldap_group_links (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  namespace_id INTEGER NOT NULL REFERENCES namespaces (id) ON DELETE CASCADE,
  cn TEXT NOT NULL,
  group_access INTEGER NOT NULL CHECK (group_access IN (10, 20, 30, 40, 50)),
  provider TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX ldap_group_links_namespace_provider_cn ON ldap_group_links (namespace_id, provider, cn);
-- The hourly sync walks every group linked under one provider.
CREATE INDEX ldap_group_links_provider ON ldap_group_links (provider, namespace_id);
`,
};
