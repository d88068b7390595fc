import type { Migration } from '../migrate.js';

/**
 * Geo: the event log and the cursor are site-local (see db/local-tables.ts); geo nodes and the
 * status reports secondaries send are ordinary replicated tables, so every site can show them.
 */
export const geo: Migration = {
  version: 2,
  name: 'geo',
  sql: `
-- AUTOINCREMENT: ids are never reused, even after pruning empties the log, and a rolled-back
-- write rolls back its id too, so committed ids are strictly increasing and gapless.
CREATE TABLE geo_event_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  created_at INTEGER NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('row', 'blob', 'heartbeat')),
  table_name TEXT,
  op TEXT,
  row_id INTEGER,
  payload TEXT
);
CREATE INDEX geo_event_log_created_at ON geo_event_log (created_at);

-- One row on a secondary: the last event applied, moved in the same transaction as the changes.
CREATE TABLE geo_cursor (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  last_event_id INTEGER NOT NULL,
  last_event_at INTEGER,
  bootstrapped_at TEXT NOT NULL,
  -- The node's resync_requested_at this database already answered (compared, never clock-ordered).
  resync_handled TEXT
);

CREATE TABLE geo_nodes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  url TEXT NOT NULL,
  "primary" INTEGER NOT NULL DEFAULT 0,
  enabled INTEGER NOT NULL DEFAULT 1,
  files_max_capacity INTEGER NOT NULL DEFAULT 10,
  repos_max_capacity INTEGER NOT NULL DEFAULT 25,
  clone_protocol TEXT NOT NULL DEFAULT 'http',
  -- Set by POST /geo_nodes/:id/repair: the node re-bootstraps from a fresh snapshot.
  resync_requested_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE UNIQUE INDEX geo_nodes_name ON geo_nodes (name);
CREATE UNIQUE INDEX geo_nodes_url ON geo_nodes (url);

-- The last status each secondary reported; status is the GeoNodeStatus object as JSON.
CREATE TABLE geo_node_statuses (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  geo_node_id INTEGER NOT NULL REFERENCES geo_nodes (id) ON DELETE CASCADE,
  status TEXT NOT NULL,
  reported_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX geo_node_statuses_node ON geo_node_statuses (geo_node_id);
`,
};
