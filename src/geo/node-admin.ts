import type { Db } from '../db/connection.js';
import { inTransaction } from '../db/connection.js';
import { badRequest, invalid, type FieldErrors } from '../errors.js';
import { validateSelection, writeSelection } from './selective-sync.js';
import {
  deleteGeoNodeRow,
  findGeoNode,
  findGeoNodeByName,
  findGeoNodeByUrl,
  findPrimaryGeoNode,
  getGeoNode,
  insertGeoNode,
  markResyncRequested,
  updateGeoNodeSettings,
  type GeoNodeRow,
  type GeoNodeSettings,
} from './nodes.js';

export const CLONE_PROTOCOLS = ['http', 'ssh'] as const;

/** What an admin may send; absent fields keep their value (or take the default on create). */
export interface GeoNodeInput {
  url?: string;
  name?: string;
  primary?: boolean;
  enabled?: boolean;
  files_max_capacity?: number;
  repos_max_capacity?: number;
  clone_protocol?: (typeof CLONE_PROTOCOLS)[number];
  /** Selective sync (geo/selective-sync.ts): 'namespaces', or '' / null for everything. */
  selective_sync_type?: string | null;
  selective_sync_namespace_ids?: number[];
}

/** A new node's settings where its creator names none (GitLab's defaults; the benches read them too). */
export const GEO_NODE_DEFAULTS = { primary: false, enabled: true, files_max_capacity: 10, repos_max_capacity: 25, clone_protocol: 'http' } as const;

/**
 * Adds a node, as an admin does before the new site first registers itself under the same name
 * (its name defaults to its URL). Only one node may be the primary.
 */
export function createGeoNode(db: Db, input: GeoNodeInput & { url: string }): GeoNodeRow {
  return inTransaction(db, () => {
    const url = normalizeUrl(input.url);
    const { selective_sync_type: selectiveType, selective_sync_namespace_ids: namespaceIds, ...settings } = input;
    const node: GeoNodeSettings = { ...GEO_NODE_DEFAULTS, ...definedOf(settings), url: url ?? input.url, name: input.name || url || input.url };
    const errors = validate(db, node, null);
    validateSelection(db, selectiveType || null, namespaceIds, errors);
    if (url === null) errors.url = ['must be an absolute http or https URL'];
    if (node.primary && findPrimaryGeoNode(db)) errors.primary = ['node already exists'];
    if (Object.keys(errors).length) throw invalid(errors);
    const row = insertGeoNode(db, node);
    writeSelection(db, row.id, selectiveType || null, namespaceIds);
    return findGeoNode(db, row.id)!;
  });
}

/**
 * Changes a node's settings. `servingNode` names the node the caller is using: a site finds its
 * own row by the name it is configured with, so that node cannot be renamed from under it.
 */
export function updateGeoNode(db: Db, id: number, input: Omit<GeoNodeInput, 'primary'>, servingNode: string): GeoNodeRow {
  return inTransaction(db, () => {
    const existing = getGeoNode(db, id);
    const { selective_sync_type: selectiveInput, selective_sync_namespace_ids: namespaceIds, ...settings } = input;
    const selectiveType = selectiveInput === undefined ? existing.selective_sync_type : selectiveInput || null;
    const url = input.url === undefined ? existing.url : normalizeUrl(input.url);
    const node: GeoNodeSettings = {
      ...settingsOf(existing),
      ...definedOf(settings),
      url: url ?? input.url ?? existing.url,
    };
    const errors = validate(db, node, existing.id);
    if (url === null) errors.url = ['must be an absolute http or https URL'];
    if (node.name !== existing.name && (existing.name === servingNode || existing.primary === 1)) {
      errors.name = ['cannot be changed for the primary node or the node serving this request: a site finds its node by its configured name'];
    }
    validateSelection(db, selectiveType, namespaceIds, errors);
    if (Object.keys(errors).length) throw invalid(errors);
    updateGeoNodeSettings(db, id, node);
    writeSelection(db, id, selectiveType, namespaceIds);
    return findGeoNode(db, id)!;
  });
}

/** Removes a secondary node. The primary and the node serving the request stay: each site needs its own row. */
export function deleteGeoNode(db: Db, id: number, servingNode: string): void {
  inTransaction(db, () => {
    const node = getGeoNode(db, id);
    if (node.primary) throw badRequest('The primary node cannot be removed');
    if (node.name === servingNode) throw badRequest('The current node cannot be removed: it is the node serving this request');
    deleteGeoNodeRow(db, id);
  });
}

/**
 * POST /geo_nodes/:id/repair: the secondary re-bootstraps from a fresh snapshot of the primary
 * (its agent compares resync_requested_at, replicated to it, with its own bootstrap time).
 */
export function repairGeoNode(db: Db, id: number): GeoNodeRow {
  return inTransaction(db, () => {
    const node = getGeoNode(db, id);
    if (node.primary) throw badRequest('The primary node cannot be re-synced');
    return markResyncRequested(db, id);
  });
}

function validate(db: Db, node: GeoNodeSettings, selfId: number | null): FieldErrors {
  const errors: FieldErrors = {};
  if (!node.name.trim()) errors.name = ["can't be blank"];
  else if (node.name.length > 255) errors.name = ['is too long (maximum is 255 characters)'];
  const sameName = findGeoNodeByName(db, node.name);
  if (sameName && sameName.id !== selfId) errors.name = ['has already been taken'];
  const sameUrl = findGeoNodeByUrl(db, node.url);
  if (sameUrl && sameUrl.id !== selfId) errors.url = ['has already been taken'];
  for (const field of ['files_max_capacity', 'repos_max_capacity'] as const) {
    if (!Number.isInteger(node[field]) || node[field] < 0) errors[field] = ['must be greater than or equal to 0'];
  }
  if (!(CLONE_PROTOCOLS as readonly string[]).includes(node.clone_protocol)) errors.clone_protocol = ['is not included in the list'];
  if (node.primary && !node.enabled) errors.enabled = ['Geo primary node cannot be disabled'];
  return errors;
}

/** http(s) with a host; stored without trailing slashes, the form sites register themselves with. null when unusable. */
function normalizeUrl(raw: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(raw.trim());
  } catch {
    return null;
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !parsed.hostname) return null;
  return parsed.href.replace(/\/+$/, '');
}

function settingsOf(row: GeoNodeRow): GeoNodeSettings {
  return {
    name: row.name,
    url: row.url,
    primary: row.primary === 1,
    enabled: row.enabled === 1,
    files_max_capacity: row.files_max_capacity,
    repos_max_capacity: row.repos_max_capacity,
    clone_protocol: row.clone_protocol,
  };
}

/** The fields the caller gave, so a spread over the current settings changes only those. */
function definedOf<T extends object>(input: T): Partial<T> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as Partial<T>;
}
