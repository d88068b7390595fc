import type { Db } from '../../db/connection.js';
import { selectPage, type Page, type Paged } from '../../db/page.js';
import { AUTHORIZED_PROJECT_IDS, projectIdsWithAccessAtLeast } from '../../db/tables/access.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import type { Actor } from '../users/authentication.js';
import { today } from '../../storage/clock.js';
import { isAdmin } from '../permissions.js';
import { VISIBILITY, type VisibilityName } from '../../db/levels.js';

export const PROJECT_ORDERS = ['id', 'name', 'path', 'created_at', 'updated_at', 'last_activity_at', 'star_count'] as const;
export type ProjectOrder = (typeof PROJECT_ORDERS)[number];

/** The filters shared by every project list (SPEC: Projects), plus the scope each list adds. */
export interface ProjectFilters {
  /** Only projects of this namespace (a group's or a user's projects). */
  namespaceId?: number;
  /** Only projects of these namespaces (a group search: the group and its subgroups). */
  namespaceIds?: readonly number[];
  /** With namespaceId: projects of its subgroups too (`include_subgroups`). */
  includeSubgroups?: boolean;
  /** With namespaceId: projects shared with that group too (`with_shared`, GitLab's default). */
  withShared?: boolean;
  /** Only projects shared with this group (a group's `shared_projects`). */
  sharedWithGroupId?: number;
  /** Only forks of this project. */
  forkedFromId?: number;
  /** true lists archived projects too; anything else hides them (GITLAB-NOTES 2.2). */
  archived?: boolean;
  visibility?: VisibilityName;
  /** Default created_at. */
  orderBy?: ProjectOrder;
  /** Default desc. */
  sort?: 'asc' | 'desc';
  /** Case-insensitive substring of the name, path or description. */
  search?: string;
  /** In the caller's own namespace. */
  owned?: boolean;
  /** The caller is a member, directly or through a group or share. */
  membership?: boolean;
  starred?: boolean;
  withIssuesEnabled?: boolean;
  withMergeRequestsEnabled?: boolean;
  /** Topic names, case-insensitive; a project must have every one. */
  topics?: readonly string[];
  /** Only projects with this topic. */
  topicId?: number;
  /** The caller's access is at least this level (GitLab's `min_access_level`; ignored for anonymous callers, as GitLab's finder does). */
  minAccessLevel?: number;
  /** Also match the search against the full path and name of the project's namespace (`search_namespaces`). */
  searchNamespaces?: boolean;
  /** Projects the caller created by importing (`imported`). */
  imported?: boolean;
  /** true: not archived; false: archived only (GitLab's `active`; nothing here is pending deletion). */
  active?: boolean;
  idAfter?: number;
  idBefore?: number;
  /** ISO times, exclusive as GitLab's `last_activity_after`/`_before` and `updated_after`/`_before`. */
  lastActivityAfter?: string;
  lastActivityBefore?: string;
  updatedAfter?: string;
  updatedBefore?: string;
  /** Only projects on this storage; honoured for admins only. */
  repositoryStorage?: string;
  /** `custom_attributes[key]=value`; honoured for admins only. */
  customAttributes?: Record<string, string>;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/**
 * Lists the projects the actor can see that match the filters, paged in SQL: anonymous callers
 * see public projects, users public and internal (public only for external users) ones plus
 * those they are authorized on, admins all (GITLAB-NOTES 2.2).
 */
export function listProjects(db: Db, actor: Actor | null, filters: ProjectFilters, page: Page): Paged<ProjectRow> {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  const userId = actor?.user.id ?? null;
  const needsUser = filters.owned || filters.membership || filters.starred || filters.imported;
  if (needsUser && userId === null) return { rows: [], total: 0 };

  if (!actor) where.push(`p.visibility_level = ${VISIBILITY.public}`);
  else if (!isAdmin(actor)) {
    where.push(`(p.visibility_level >= @min_visible OR p.id IN (${AUTHORIZED_PROJECT_IDS}))`);
    params.min_visible = actor.user.external ? VISIBILITY.public : VISIBILITY.internal;
  }
  if (userId !== null) {
    params.user = userId;
    params.today = today();
  }
  if (filters.namespaceId !== undefined) {
    const own = filters.includeSubgroups
      ? 'p.namespace_id IN (WITH RECURSIVE tree(id) AS (SELECT @namespace UNION ALL SELECT n.id FROM namespaces n JOIN tree t ON n.parent_id = t.id) SELECT id FROM tree)'
      : 'p.namespace_id = @namespace';
    where.push(filters.withShared ? `(${own} OR p.id IN (SELECT project_id FROM project_group_links WHERE group_id = @namespace))` : own);
    params.namespace = filters.namespaceId;
  }
  if (filters.namespaceIds !== undefined) {
    where.push('p.namespace_id IN (SELECT value FROM json_each(@namespace_ids))');
    params.namespace_ids = JSON.stringify(filters.namespaceIds);
  }
  if (filters.sharedWithGroupId !== undefined) {
    where.push('p.id IN (SELECT project_id FROM project_group_links WHERE group_id = @shared_with)');
    params.shared_with = filters.sharedWithGroupId;
  }
  if (filters.forkedFromId !== undefined) {
    where.push('p.forked_from_project_id = @forked_from');
    params.forked_from = filters.forkedFromId;
  }
  if (filters.active !== undefined) where.push(`p.archived = ${filters.active ? 0 : 1}`);
  else if (filters.archived !== true) where.push('p.archived = 0');
  if (filters.visibility !== undefined) {
    where.push('p.visibility_level = @visibility');
    params.visibility = VISIBILITY[filters.visibility];
  }
  if (filters.search) {
    const namespaces = filters.searchNamespaces
      ? " OR p.namespace_id IN (SELECT id FROM namespaces WHERE full_path LIKE @search ESCAPE '\\' OR name LIKE @search ESCAPE '\\')"
      : '';
    where.push(`(p.name LIKE @search ESCAPE '\\' OR p.path LIKE @search ESCAPE '\\' OR p.description LIKE @search ESCAPE '\\'${namespaces})`);
    params.search = `%${escapeLike(filters.search)}%`;
  }
  if (filters.owned) where.push("p.namespace_id IN (SELECT id FROM namespaces WHERE kind = 'user' AND owner_id = @user)");
  if (filters.membership) where.push(`p.id IN (${AUTHORIZED_PROJECT_IDS})`);
  if (filters.starred) where.push('p.id IN (SELECT project_id FROM project_stars WHERE user_id = @user)');
  if (filters.withIssuesEnabled) where.push('p.issues_enabled = 1');
  if (filters.withMergeRequestsEnabled) where.push('p.merge_requests_enabled = 1');
  filters.topics?.forEach((topic, index) => {
    where.push(`EXISTS (SELECT 1 FROM project_topics pt JOIN topics t ON t.id = pt.topic_id WHERE pt.project_id = p.id AND t.name = @topic${index})`);
    params[`topic${index}`] = topic;
  });
  if (filters.topicId !== undefined) {
    where.push('p.id IN (SELECT project_id FROM project_topics WHERE topic_id = @topic_id)');
    params.topic_id = filters.topicId;
  }
  if (filters.imported) where.push("p.creator_id = @user AND p.import_status <> 'none'");
  if (filters.minAccessLevel !== undefined && userId !== null) {
    // Applied in SQL, so a bot's autodiscovery pages through only the projects it may push to.
    where.push(`p.id IN (${projectIdsWithAccessAtLeast('@min_access')})`);
    params.min_access = filters.minAccessLevel;
  }
  const bounds = [
    ['p.id >', filters.idAfter],
    ['p.id <', filters.idBefore],
    ['p.last_activity_at >', filters.lastActivityAfter],
    ['p.last_activity_at <', filters.lastActivityBefore],
    ['p.updated_at >', filters.updatedAfter],
    ['p.updated_at <', filters.updatedBefore],
  ] as const;
  bounds.forEach(([condition, value], index) => {
    if (value === undefined) return;
    where.push(`${condition} @bound${index}`);
    params[`bound${index}`] = value;
  });
  if (isAdmin(actor)) {
    if (filters.repositoryStorage !== undefined) {
      where.push('p.repository_storage = @storage');
      params.storage = filters.repositoryStorage;
    }
    Object.entries(filters.customAttributes ?? {}).forEach(([key, value], index) => {
      where.push(`EXISTS (SELECT 1 FROM project_custom_attributes a WHERE a.project_id = p.id AND a.key = @ca_key${index} AND a.value = @ca_value${index})`);
      params[`ca_key${index}`] = key;
      params[`ca_value${index}`] = value;
    });
  }

  const fromWhere = `FROM projects p${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
  const direction = (filters.sort ?? 'desc').toUpperCase();
  const orderBy = filters.orderBy ?? 'created_at';
  const column = orderBy === 'name' || orderBy === 'path' ? `p.${orderBy} COLLATE NOCASE` : `p.${orderBy}`;
  const order = orderBy === 'id' ? `p.id ${direction}` : `${column} ${direction}, p.id ${direction}`;
  return selectPage<ProjectRow>(db, 'p.*', fromWhere, order, [params], page);
}
