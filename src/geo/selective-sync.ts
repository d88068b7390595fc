import type { Db } from '../db/connection.js';
import { prepare } from '../db/connection.js';
import type { FieldErrors } from '../errors.js';
import type { BlobType } from './blobs.js';
import type { BlobKind } from './status.js';

/**
 * Selective sync (issue 18, item 5; GitLab Geo's selective_sync_type 'namespaces'): a secondary
 * holds the repositories, wikis, LFS objects, uploads and artifacts of the projects in the selected
 * groups and their subgroups only. The selection lives in replicated tables (geo_nodes,
 * geo_node_namespace_links), so every site knows every node's; the database replicates whole.
 */
export const SELECTIVE_SYNC_TYPES = ['namespaces', 'shards'] as const;

/** The namespaces a node selected and all their descendants. */
const SELECTED = `WITH RECURSIVE selected(id) AS (
  SELECT namespace_id FROM geo_node_namespace_links WHERE geo_node_id = @node
  UNION SELECT n.id FROM namespaces n JOIN selected ON n.parent_id = selected.id)`;
const PROJECT_SELECTED = 'SELECT 1 FROM projects WHERE id = @project AND namespace_id IN (SELECT id FROM selected)';

/** The node id when the named node syncs selectively; null when it holds everything. */
export function selectiveNodeId(db: Db, nodeName: string): number | null {
  const row = prepare(db, 'SELECT id, selective_sync_type FROM geo_nodes WHERE name = ?').get(nodeName) as { id: number; selective_sync_type: string | null } | undefined;
  return row && row.selective_sync_type === 'namespaces' ? row.id : null;
}

/** Whether a node with selective sync holds an item: its project is in a selected group (an LFS object: any project linking it). */
export function isItemSelected(db: Db, nodeId: number, type: BlobType, itemId: number, projectId: number | null): boolean {
  if (type === 'lfs_object') {
    return prepare(db, `${SELECTED} SELECT 1 FROM lfs_objects_projects l JOIN projects p ON p.id = l.project_id WHERE l.lfs_object_id = @item AND p.namespace_id IN (SELECT id FROM selected) LIMIT 1`).get({ node: nodeId, item: itemId }) !== undefined;
  }
  // A group's wiki is held with its group (a selected group's subgroups are selected too).
  if (type === 'group_wiki_repository') return prepare(db, `${SELECTED} SELECT 1 FROM selected WHERE id = @item`).get({ node: nodeId, item: itemId }) !== undefined;
  // A personal snippet belongs to no namespace: every node holds it, as GitLab's selective sync does.
  if (type === 'snippet_repository' && projectId === null) return true;
  const project = type === 'repository' || type === 'wiki' ? itemId : projectId;
  if (project === null) return false;
  return prepare(db, `${SELECTED} ${PROJECT_SELECTED}`).get({ node: nodeId, project }) !== undefined;
}

/** What a node with selective sync should hold, per kind: the primary's inventory within its selection. */
export function selectedInventoryCounts(db: Db, nodeId: number): Record<BlobKind, number> {
  const inSelection = 'IN (SELECT p.id FROM projects p WHERE p.namespace_id IN (SELECT id FROM selected))';
  const count = (sql: string) => prepare(db, `${SELECTED} ${sql}`).pluck().get({ node: nodeId }) as number;
  return {
    repositories: count(`SELECT count(*) FROM repository_states WHERE repository_checksum IS NOT NULL AND project_id ${inSelection}`),
    wikis: count(`SELECT count(*) FROM repository_states WHERE wiki_checksum IS NOT NULL AND project_id ${inSelection}`),
    lfs_objects: count(`SELECT count(DISTINCT lfs_object_id) FROM lfs_objects_projects WHERE project_id ${inSelection}`),
    job_artifacts: count(`SELECT count(*) FROM ci_job_artifacts WHERE project_id ${inSelection}`),
    attachments: count(`SELECT count(*) FROM uploads WHERE project_id ${inSelection}`),
    snippet_repositories: count(`SELECT count(*) FROM snippets WHERE repository_checksum IS NOT NULL AND (project_id IS NULL OR project_id ${inSelection})`),
    group_wiki_repositories: count('SELECT count(*) FROM group_wiki_repositories WHERE checksum IS NOT NULL AND group_id IN (SELECT id FROM selected)'),
  };
}

/** The selected namespace ids of each node, one query for a page of nodes. */
export function namespaceIdsOf(db: Db, nodeIds: readonly number[]): Map<number, number[]> {
  const out = new Map<number, number[]>(nodeIds.map((id) => [id, []]));
  if (!nodeIds.length) return out;
  const rows = prepare(db, `SELECT geo_node_id, namespace_id FROM geo_node_namespace_links WHERE geo_node_id IN (${nodeIds.map(() => '?').join(', ')}) ORDER BY namespace_id`).all(...nodeIds) as Array<{
    geo_node_id: number;
    namespace_id: number;
  }>;
  for (const row of rows) out.get(row.geo_node_id)!.push(row.namespace_id);
  return out;
}

/** Checks an admin's selection: namespace ids must name groups. */
export function validateSelection(db: Db, type: string | null, namespaceIds: readonly number[] | undefined, errors: FieldErrors): void {
  if (type !== null && !(SELECTIVE_SYNC_TYPES as readonly string[]).includes(type)) errors.selective_sync_type = ['is not included in the list'];
  if (type === 'shards') errors.selective_sync_type = ['shards are not supported: this site has one storage'];
  const group = prepare(db, "SELECT 1 FROM namespaces WHERE id = ? AND kind = 'group'").pluck();
  const unknown = (namespaceIds ?? []).filter((id) => group.get(id) === undefined);
  if (unknown.length) errors.selective_sync_namespace_ids = [`must be group ids; not groups: ${unknown.join(', ')}`];
}

/** Writes a node's selection (the caller validated it and runs the transaction); ids undefined keeps the current ones. */
export function writeSelection(db: Db, nodeId: number, type: string | null, namespaceIds: readonly number[] | undefined): void {
  prepare(db, 'UPDATE geo_nodes SET selective_sync_type = ? WHERE id = ? AND selective_sync_type IS NOT ?').run(type, nodeId, type);
  if (namespaceIds === undefined) return;
  const wanted = new Set(namespaceIds);
  const current = prepare(db, 'SELECT namespace_id FROM geo_node_namespace_links WHERE geo_node_id = ?').pluck().all(nodeId) as number[];
  for (const id of current) if (!wanted.has(id)) prepare(db, 'DELETE FROM geo_node_namespace_links WHERE geo_node_id = ? AND namespace_id = ?').run(nodeId, id);
  for (const id of wanted) if (!current.includes(id)) prepare(db, 'INSERT INTO geo_node_namespace_links (geo_node_id, namespace_id) VALUES (?, ?)').run(nodeId, id);
}
