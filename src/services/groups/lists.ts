import type { Db } from '../../db/connection.js';
import { selectPage, type Page, type Paged } from '../../db/page.js';
import { HIERARCHY_GROUP_IDS, OWNED_GROUP_IDS } from '../../db/tables/groups.js';
import type { NamespaceRow } from '../../db/tables/namespaces.js';
import type { Actor } from '../users/authentication.js';
import { today } from '../../storage/clock.js';
import { isAdmin } from '../permissions.js';
import { VISIBILITY } from '../../db/levels.js';

/** The common group-list parameters (SPEC: Groups), read by the API. */
export interface GroupListFilters {
  /** Also list public and internal groups the actor is no member of; undefined takes the route's default. */
  allAvailable?: boolean;
  skipGroups?: number[];
  search?: string;
  owned?: boolean;
  /** Admin-only filter; ignored for everyone else, as GitLab does. */
  customAttributes?: Record<string, string>;
  orderBy: 'name' | 'path';
  sort: 'asc' | 'desc';
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/**
 * GET /groups (GITLAB-NOTES 2.1): anonymous callers see public groups; a user sees the groups of
 * their hierarchy, plus every public and internal group with all_available; admins see every
 * group unless they pass all_available=false.
 */
export function listGroups(db: Db, actor: Actor | null, filters: GroupListFilters, page: Page): Paged<NamespaceRow> {
  return selectGroups(db, actor, filters, filters.allAvailable ?? isAdmin(actor), null, page);
}

/**
 * GET /groups/:id/subgroups: the direct children of a group the caller can see (resolved by the
 * caller), limited to those they may see themselves unless all_available=false narrows it to
 * their own hierarchy.
 */
export function listSubgroups(db: Db, actor: Actor | null, parent: NamespaceRow, filters: GroupListFilters, page: Page): Paged<NamespaceRow> {
  return selectGroups(db, actor, filters, filters.allAvailable ?? true, { parentId: parent.id }, page);
}

/** GET /groups/:id/descendant_groups: every group below the group at any depth, under the same visibility and filters as subgroups. */
export function listDescendantGroups(db: Db, actor: Actor | null, ancestor: NamespaceRow, filters: GroupListFilters, page: Page): Paged<NamespaceRow> {
  return selectGroups(db, actor, filters, filters.allAvailable ?? true, { ancestorId: ancestor.id }, page);
}

/** Where a group list looks: everywhere, one group's children, or everything below one group. */
type GroupScope = null | { readonly parentId: number } | { readonly ancestorId: number };

function selectGroups(db: Db, actor: Actor | null, filters: GroupListFilters, allAvailable: boolean, scope: GroupScope, page: Page): Paged<NamespaceRow> {
  const where = ["g.kind = 'group'"];
  const params: unknown[] = [{ user: actor?.user.id ?? null, today: today() }];
  if (!actor) where.push(`g.visibility_level >= ${VISIBILITY.public}`);
  else if (!(isAdmin(actor) && allAvailable)) {
    // External users see public groups only, as visibleWithoutMembership says.
    const openLevel = actor.user.external ? VISIBILITY.public : VISIBILITY.internal;
    where.push(`(g.id IN (${HIERARCHY_GROUP_IDS})${allAvailable ? ` OR g.visibility_level >= ${openLevel}` : ''})`);
  }
  if (scope && 'parentId' in scope) {
    where.push('g.parent_id = ?');
    params.push(scope.parentId);
  } else if (scope) {
    where.push(
      'g.id IN (WITH RECURSIVE tree(id) AS (SELECT id FROM namespaces WHERE parent_id = ? UNION ALL SELECT n.id FROM namespaces n JOIN tree t ON n.parent_id = t.id) SELECT id FROM tree)',
    );
    params.push(scope.ancestorId);
  }
  if (filters.owned) where.push(actor ? `g.id IN (${OWNED_GROUP_IDS})` : '0');
  if (filters.skipGroups?.length) {
    where.push('g.id NOT IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(filters.skipGroups));
  }
  if (filters.search) {
    const like = `%${escapeLike(filters.search)}%`;
    where.push("(g.name LIKE ? ESCAPE '\\' OR g.path LIKE ? ESCAPE '\\')");
    params.push(like, like);
  }
  if (isAdmin(actor)) {
    for (const [key, value] of Object.entries(filters.customAttributes ?? {})) {
      where.push('EXISTS (SELECT 1 FROM group_custom_attributes a WHERE a.group_id = g.id AND a.key = ? AND a.value = ?)');
      params.push(key, value);
    }
  }
  const direction = filters.sort === 'desc' ? 'DESC' : 'ASC';
  const order = `g.${filters.orderBy} COLLATE NOCASE ${direction}, g.id ${direction}`;
  return selectPage<NamespaceRow>(db, 'g.*', `FROM namespaces g WHERE ${where.join(' AND ')}`, order, params, page);
}
