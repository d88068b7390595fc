import type { Db } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import { selfAndAncestorGroupIds } from '../../db/tables/groups.js';
import { findNamespaceById, pageNamespacesIn, type NamespaceRow } from '../../db/tables/namespaces.js';
import { sharedGroupIds, type ProjectRow } from '../../db/tables/projects.js';
import { can } from '../permissions.js';
import type { Actor } from '../users/authentication.js';

export interface ProjectGroupsFilters {
  readonly search?: string;
  readonly skipGroups?: readonly number[];
  readonly withShared: boolean;
  readonly sharedMinAccessLevel: number;
}

/**
 * GET /projects/:id/groups (GitLab's Projects::GroupsFinder): the project's group and its
 * ancestors, with `with_shared` the groups it is shared with too, those the actor may read.
 * The candidates are few (a group chain and the shares), so readability is asked per group; the
 * page and the search are SQL.
 */
export function listProjectGroups(db: Db, actor: Actor | null, project: ProjectRow, filters: ProjectGroupsFilters, page: Page): Paged<NamespaceRow> {
  const candidates = new Set(selfAndAncestorGroupIds(db, project.namespace_id));
  if (filters.withShared) for (const id of sharedGroupIds(db, project.id, filters.sharedMinAccessLevel)) candidates.add(id);
  for (const id of filters.skipGroups ?? []) candidates.delete(id);
  const readable = [...candidates].filter((id) => {
    const group = findNamespaceById(db, id);
    return !!group && can(db, actor, 'read_group', group);
  });
  return pageNamespacesIn(db, readable, filters.search, page);
}
