import type { NamespaceRow } from '../db/tables/namespaces.js';
import type { SharedWithGroupRow } from '../db/tables/group-group-links.js';
import { visibilityName } from '../db/levels.js';
import type { EntityContext } from './users.js';
import { flag } from './column-values.js';

/** Storage figures of a group: sums over its projects (admins only, with `statistics=true`). */
export interface GroupStatistics {
  storage_size: number;
  repository_size: number;
  lfs_objects_size: number;
  job_artifacts_size: number;
}

/** Group: the list view (GITLAB-NOTES 2.1), with `statistics` only when given. */
export function group(row: NamespaceRow, ctx: EntityContext, statistics?: GroupStatistics) {
  const view = {
    id: row.id,
    name: row.name,
    path: row.path,
    description: row.description,
    visibility: visibilityName(row.visibility_level),
    lfs_enabled: flag(row.lfs_enabled),
    avatar_url: row.avatar_path ? `${ctx.externalUrl}/uploads/-/system/group/avatar/${row.id}/${encodeURIComponent(row.avatar_path)}` : null,
    web_url: `${ctx.externalUrl}/groups/${row.full_path}`,
    request_access_enabled: flag(row.request_access_enabled),
    full_name: row.full_name,
    full_path: row.full_path,
    parent_id: row.parent_id,
  };
  return statistics ? Object.assign(view, { statistics }) : view;
}

/** A group this group is shared with, as group details list it (GitLab's SharedGroupWithGroup). */
export function sharedWithGroup(row: SharedWithGroupRow) {
  return {
    group_id: row.id,
    group_name: row.name,
    group_full_path: row.full_path,
    group_access_level: row.group_access,
    expires_at: row.share_expires_at,
  };
}

/**
 * GroupDetail: the group with its own and shared projects, already serialized by the projects'
 * views, the groups it is shared with (those the caller may see), and the CI minutes limit (EE).
 */
export function groupDetail(row: NamespaceRow, ctx: EntityContext, projects: { own: unknown[]; shared: unknown[] }, sharedWith: readonly SharedWithGroupRow[]) {
  return Object.assign(group(row, ctx), {
    projects: projects.own,
    shared_projects: projects.shared,
    shared_with_groups: sharedWith.map(sharedWithGroup),
    shared_runners_minutes_limit: row.shared_runners_minutes_limit,
  });
}
