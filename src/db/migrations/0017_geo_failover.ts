import type { Migration } from '../migrate.js';

/**
 * Geo failover (issue 18). Both tables replicate, so every site can show them:
 *
 * geo_promotions: one row per promotion of a secondary, written by the promoted site as its first
 * events as primary (who, when, from which event of the old primary, and what a forced promotion
 * lacked). The newest row's epoch is the fencing epoch of the current primary.
 *
 * geo_node_namespace_links: the groups a node with selective_sync_type 'namespaces' holds blobs of
 * (GitLab's geo_node_namespace_links); the database itself still replicates whole.
 */
export const geoFailover: Migration = {
  version: 17,
  name: 'geo_failover',
  sql: `
CREATE TABLE geo_promotions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  epoch INTEGER NOT NULL,
  node_name TEXT NOT NULL,
  node_url TEXT NOT NULL,
  previous_primary_url TEXT,
  -- Who asked: a username (admin API) or 'cli'.
  promoted_by TEXT NOT NULL,
  forced INTEGER NOT NULL DEFAULT 0 CHECK (forced IN (0, 1)),
  -- The last event of the old primary this site had applied: events after it are not here.
  from_event_id INTEGER NOT NULL,
  from_event_at INTEGER,
  -- What a forced promotion knew it lacked: events seen on the old primary but not applied, blobs not synced.
  missing_events INTEGER,
  unsynced_blobs INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX geo_promotions_epoch ON geo_promotions (epoch);

ALTER TABLE geo_nodes ADD COLUMN selective_sync_type TEXT;

CREATE TABLE geo_node_namespace_links (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  geo_node_id INTEGER NOT NULL REFERENCES geo_nodes (id) ON DELETE CASCADE,
  namespace_id INTEGER NOT NULL REFERENCES namespaces (id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX geo_node_namespace_links_node ON geo_node_namespace_links (geo_node_id, namespace_id);
CREATE INDEX geo_node_namespace_links_namespace ON geo_node_namespace_links (namespace_id);
`,
};
