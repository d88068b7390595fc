import type { GeoNodeRow } from '../geo/nodes.js';
import { flag } from './column-values.js';

export interface GeoNodeContext {
  readonly externalUrl: string;
  /** The name of the node the caller is using; that node shows `current: true`. */
  readonly currentNode: string;
}

/** Geo node (SPEC: Geo node), plus `name` and the `_links` later GitLab versions add (GITLAB-NOTES 2.7). */
export function geoNode(row: GeoNodeRow, ctx: GeoNodeContext, namespaceIds: readonly number[] = []) {
  const self = `${ctx.externalUrl}/api/v4/geo_nodes/${row.id}`;
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    primary: flag(row.primary),
    enabled: flag(row.enabled),
    current: row.name === ctx.currentNode,
    files_max_capacity: row.files_max_capacity,
    repos_max_capacity: row.repos_max_capacity,
    clone_protocol: row.clone_protocol,
    selective_sync_type: row.selective_sync_type,
    selective_sync_shards: [],
    selective_sync_namespace_ids: namespaceIds,
    _links: { self, status: `${self}/status`, repair: `${self}/repair` },
  };
}
