import type { Db } from '../db/connection.js';
import { prepare } from '../db/connection.js';
import { selectPage, type Page, type Paged } from '../db/page.js';
import { notFound } from '../errors.js';
import { nowIso } from '../storage/clock.js';
import type { GeoNodeStatus } from './status.js';

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
  /** 'namespaces' when the node holds the blobs of selected groups only (geo/selective-sync.ts). */
  selective_sync_type: string | null;
  created_at: string;
  updated_at: string;
}

export function findGeoNodeByName(db: Db, name: string): GeoNodeRow | undefined {
  return prepare(db, 'SELECT * FROM geo_nodes WHERE name = ?').get(name) as GeoNodeRow | undefined;
}

export function findGeoNode(db: Db, id: number): GeoNodeRow | undefined {
  return prepare(db, 'SELECT * FROM geo_nodes WHERE id = ?').get(id) as GeoNodeRow | undefined;
}

/** The node, or 404 `GeoNode` (GITLAB-NOTES 1.3). */
export function getGeoNode(db: Db, id: number): GeoNodeRow {
  const node = findGeoNode(db, id);
  if (!node) throw notFound('GeoNode');
  return node;
}

/** URLs compare without regard to case, as GitLab's uniqueness check on geo_nodes.url does. */
export function findGeoNodeByUrl(db: Db, url: string): GeoNodeRow | undefined {
  return prepare(db, 'SELECT * FROM geo_nodes WHERE lower(url) = lower(?)').get(url) as GeoNodeRow | undefined;
}

/** The node marked primary; there is at most one (geo/node-admin.ts refuses a second). */
export function findPrimaryGeoNode(db: Db): GeoNodeRow | undefined {
  return prepare(db, 'SELECT * FROM geo_nodes WHERE "primary" = 1 ORDER BY id LIMIT 1').get() as GeoNodeRow | undefined;
}

/** One page of nodes by id; `secondaries` keeps only the non-primary ones (GET /geo_nodes/status). */
export function listGeoNodes(db: Db, page: Page, options: { secondaries?: boolean } = {}): Paged<GeoNodeRow> {
  return selectPage<GeoNodeRow>(db, '*', options.secondaries ? 'FROM geo_nodes WHERE "primary" = 0' : 'FROM geo_nodes', 'id', [], page);
}

/** Every node by id, for reports that show them all at once (the CLI). */
export function allGeoNodes(db: Db): GeoNodeRow[] {
  return prepare(db, 'SELECT * FROM geo_nodes ORDER BY id').all() as GeoNodeRow[];
}

/** The settings an admin chooses for a node; its id, timestamps and resync request are kept apart. */
export interface GeoNodeSettings {
  name: string;
  url: string;
  primary: boolean;
  enabled: boolean;
  files_max_capacity: number;
  repos_max_capacity: number;
  clone_protocol: string;
}

/** Inserts a node an admin added; the caller has validated it. */
export function insertGeoNode(db: Db, node: GeoNodeSettings): GeoNodeRow {
  const now = nowIso();
  const id = prepare(
    db,
    `INSERT INTO geo_nodes (name, url, "primary", enabled, files_max_capacity, repos_max_capacity, clone_protocol, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(node.name, node.url, node.primary ? 1 : 0, node.enabled ? 1 : 0, node.files_max_capacity, node.repos_max_capacity, node.clone_protocol, now, now).lastInsertRowid;
  return findGeoNode(db, Number(id))!;
}

/** Writes a node's full settings; the caller has validated them. */
export function updateGeoNodeSettings(db: Db, id: number, node: GeoNodeSettings): GeoNodeRow {
  prepare(
    db,
    `UPDATE geo_nodes SET name = ?, url = ?, "primary" = ?, enabled = ?, files_max_capacity = ?, repos_max_capacity = ?, clone_protocol = ?, updated_at = ?
     WHERE id = ?`,
  ).run(node.name, node.url, node.primary ? 1 : 0, node.enabled ? 1 : 0, node.files_max_capacity, node.repos_max_capacity, node.clone_protocol, nowIso(), id);
  return findGeoNode(db, id)!;
}

/** Asks the node's agent for a full re-sync: it re-bootstraps once this time is newer than its bootstrap. */
export function markResyncRequested(db: Db, id: number): GeoNodeRow {
  const now = nowIso();
  prepare(db, 'UPDATE geo_nodes SET resync_requested_at = ?, updated_at = ? WHERE id = ?').run(now, now, id);
  return findGeoNode(db, id)!;
}

/** Deletes the node; its stored status goes by ON DELETE CASCADE, whose delete the capture triggers also log. */
export function deleteGeoNodeRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM geo_nodes WHERE id = ?').run(id);
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

/** The last report a node sent, as stored, with the time it arrived (ms); undefined when it never reported. */
export function readStoredNodeStatus(db: Db, nodeId: number): { status: GeoNodeStatus; reportedAt: number } | undefined {
  const row = prepare(db, 'SELECT status, reported_at FROM geo_node_statuses WHERE geo_node_id = ?').get(nodeId) as
    | { status: string; reported_at: number }
    | undefined;
  return row && { status: JSON.parse(row.status) as GeoNodeStatus, reportedAt: row.reported_at };
}

/** Stores the status a secondary reported (one row per node, replaced each time). */
export function storeNodeStatus(db: Db, nodeId: number, status: object, reportedAt: number): void {
  prepare(
    db,
    `INSERT INTO geo_node_statuses (geo_node_id, status, reported_at) VALUES (?, ?, ?)
     ON CONFLICT (geo_node_id) DO UPDATE SET status = excluded.status, reported_at = excluded.reported_at`,
  ).run(nodeId, JSON.stringify(status), reportedAt);
}
