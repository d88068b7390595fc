import type { Db } from '../db/connection.js';
import { selectPage, type Page, type Paged } from '../db/page.js';
import { findNamespaceById, findNamespaceByPath, type NamespaceRow } from '../db/tables/namespaces.js';
import { notFound } from '../errors.js';
import type { Actor } from './authentication.js';
import { canReadNamespace, isAdmin } from './permissions.js';

/** A namespace by numeric id or full path; 404 when missing or not visible to the actor (GITLAB-NOTES 1.4). */
export function getNamespace(db: Db, actor: Actor | null, ref: { id: number } | { path: string }): NamespaceRow {
  const namespace = 'id' in ref ? findNamespaceById(db, ref.id) : findNamespaceByPath(db, ref.path);
  if (!namespace || !canReadNamespace(actor, namespace)) throw notFound('Namespace');
  return namespace;
}

/** Namespaces the actor can see, by path, optionally matching `search` in path or name. */
export function listNamespaces(db: Db, actor: Actor, search: string | undefined, page: Page): Paged<NamespaceRow> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (!isAdmin(actor)) {
    where.push("(kind = 'user' AND owner_id = ?)");
    params.push(actor.user.id);
  }
  if (search) {
    const like = `%${search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
    where.push("(path LIKE ? ESCAPE '\\' OR name LIKE ? ESCAPE '\\')");
    params.push(like, like);
  }
  const fromWhere = `FROM namespaces${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`;
  return selectPage(db, '*', fromWhere, 'full_path, id', params, page);
}
