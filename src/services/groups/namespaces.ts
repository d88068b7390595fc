import type { Db } from '../../db/connection.js';
import { MEMBER_GROUP_IDS } from '../../db/tables/access.js';
import { countMembersWithDescendants } from '../../db/tables/groups.js';
import { selectPage, type Page, type Paged } from '../../db/page.js';
import { findNamespaceById, findNamespaceByPath, type NamespaceRow } from '../../db/tables/namespaces.js';
import { notFound } from '../../errors.js';
import type { Actor } from '../users/authentication.js';
import { today } from '../../storage/clock.js';
import { canReadNamespace, isAdmin } from '../permissions.js';

/** A namespace by numeric id or full path; 404 when missing or not visible to the actor (GITLAB-NOTES 1.4). */
export function getNamespace(db: Db, actor: Actor | null, ref: { id: number } | { path: string }): NamespaceRow {
  const namespace = 'id' in ref ? findNamespaceById(db, ref.id) : findNamespaceByPath(db, ref.path);
  if (!namespace || !canReadNamespace(db, actor, namespace)) throw notFound('Namespace');
  return namespace;
}

/**
 * Namespaces the actor may put projects in, by path: their own and the groups they belong to
 * (directly or through a parent); admins see every namespace. `search` matches path or name.
 */
export function listNamespaces(db: Db, actor: Actor, search: string | undefined, page: Page): Paged<NamespaceRow> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (!isAdmin(actor)) {
    where.push(`((kind = 'user' AND owner_id = @user) OR (kind = 'group' AND id IN (${MEMBER_GROUP_IDS})))`);
    params.push({ user: actor.user.id, today: today() });
  }
  if (search) {
    const like = `%${search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
    where.push("(path LIKE ? ESCAPE '\\' OR name LIKE ? ESCAPE '\\')");
    params.push(like, like);
  }
  const fromWhere = `FROM namespaces${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
  return selectPage(db, '*', fromWhere, 'full_path, id', params, page);
}

/** Distinct members of each group and its subgroups, for the admin view of namespaces (one query). */
export function membersCountsWithDescendants(db: Db, namespaces: readonly NamespaceRow[]): Map<number, number> {
  return countMembersWithDescendants(db, namespaces.filter((row) => row.kind === 'group').map((row) => row.id));
}

/**
 * GET /namespaces/:namespace/exists (GitLab 13+): whether a namespace with this path exists at
 * the top level, or below `parentId`; when it does, `suggests` holds the first free path made by
 * appending a number (GitLab's Namespace.clean_path with Uniquify).
 */
export function namespaceExists(db: Db, path: string, parentId: number | null): { exists: boolean; suggests: string[] } {
  const parent = parentId === null ? null : findNamespaceById(db, parentId);
  if (parentId !== null && !parent) return { exists: false, suggests: [] };
  const fullPathOf = (candidate: string) => (parent ? `${parent.full_path}/${candidate}` : candidate);
  if (!findNamespaceByPath(db, fullPathOf(path))) return { exists: false, suggests: [] };
  let n = 1;
  while (findNamespaceByPath(db, fullPathOf(`${path}${n}`))) n += 1;
  return { exists: true, suggests: [`${path}${n}`] };
}
