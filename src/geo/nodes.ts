import type { Db } from '../db/connection.js';
import { prepare } from '../db/connection.js';
import { nowIso } from '../services/clock.js';

export interface GeoNodeRow {
  id: number;
  name: string;
  url: string;
  primary: number;
  enabled: number;
  files_max_capacity: number;
  repos_max_capacity: number;
  clone_protocol: string;
  resync_requested_at: string | null;
  created_at: string;
  updated_at: string;
}

export function findGeoNodeByName(db: Db, name: string): GeoNodeRow | undefined {
  return prepare(db, 'SELECT * FROM geo_nodes WHERE name = ?').get(name) as GeoNodeRow | undefined;
}

export function findGeoNode(db: Db, id: number): GeoNodeRow | undefined {
  return prepare(db, 'SELECT * FROM geo_nodes WHERE id = ?').get(id) as GeoNodeRow | undefined;
}

/**
 * Records a node by name, creating it or updating its URL and role; idempotent, so a site may
 * register at every boot. The primary calls it for itself, secondaries through the primary.
 */
export function upsertGeoNode(db: Db, node: { name: string; url: string; primary: boolean }): GeoNodeRow {
  const now = nowIso();
  const existing = findGeoNodeByName(db, node.name);
  if (existing) {
    if (existing.url !== node.url || existing.primary !== (node.primary ? 1 : 0)) {
      prepare(db, 'UPDATE geo_nodes SET url = ?, "primary" = ?, updated_at = ? WHERE id = ?').run(node.url, node.primary ? 1 : 0, now, existing.id);
    }
    return findGeoNode(db, existing.id)!;
  }
  const id = prepare(db, 'INSERT INTO geo_nodes (name, url, "primary", created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(
    node.name,
    node.url,
    node.primary ? 1 : 0,
    now,
    now,
  ).lastInsertRowid;
  return findGeoNode(db, Number(id))!;
}

/** Stores the status a secondary reported (one row per node, replaced each time). */
export function storeNodeStatus(db: Db, nodeId: number, status: object, reportedAt: number): void {
  prepare(
    db,
    `INSERT INTO geo_node_statuses (geo_node_id, status, reported_at) VALUES (?, ?, ?)
     ON CONFLICT (geo_node_id) DO UPDATE SET status = excluded.status, reported_at = excluded.reported_at`,
  ).run(nodeId, JSON.stringify(status), reportedAt);
}
