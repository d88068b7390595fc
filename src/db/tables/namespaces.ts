import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

export interface NamespaceRow {
  id: number;
  name: string;
  path: string;
  kind: 'user' | 'group';
  owner_id: number | null;
  parent_id: number | null;
  full_path: string;
  full_name: string;
  description: string;
  visibility_level: number;
  lfs_enabled: number;
  request_access_enabled: number;
  membership_lock: number;
  share_with_group_lock: number;
  shared_runners_minutes_limit: number | null;
  avatar_path: string | null;
  ldap_synced_at: string | null;
  created_at: string;
  updated_at: string;
}

export function findNamespaceById(db: Db, id: number): NamespaceRow | undefined {
  return prepare(db, 'SELECT * FROM namespaces WHERE id = ?').get(id) as NamespaceRow | undefined;
}

export function findNamespaceByPath(db: Db, fullPath: string): NamespaceRow | undefined {
  return prepare(db, 'SELECT * FROM namespaces WHERE full_path = ? COLLATE NOCASE').get(fullPath) as NamespaceRow | undefined;
}

export function insertUserNamespace(db: Db, userId: number, username: string, name: string, now: string): void {
  prepare(
    db,
    "INSERT INTO namespaces (name, path, kind, owner_id, full_path, full_name, created_at, updated_at) VALUES (?, ?, 'user', ?, ?, ?, ?, ?)",
  ).run(name, username, userId, username, name, now, now);
}

/** Keeps a user's namespace in step with a new username (and name). */
export function renameUserNamespace(db: Db, userId: number, username: string, name: string, now: string): void {
  prepare(db, "UPDATE namespaces SET path = ?, full_path = ?, name = ?, full_name = ?, updated_at = ? WHERE owner_id = ? AND kind = 'user'").run(
    username,
    username,
    name,
    name,
    now,
    userId,
  );
}

/** The personal namespace of a user. */
export function findUserNamespace(db: Db, userId: number): NamespaceRow | undefined {
  return prepare(db, "SELECT * FROM namespaces WHERE kind = 'user' AND owner_id = ?").get(userId) as NamespaceRow | undefined;
}

/** A page of namespaces among these ids, optionally matching `search` in name or path. */
export function pageNamespacesIn(db: Db, ids: readonly number[], search: string | undefined, page: Page): Paged<NamespaceRow> {
  const params: unknown[] = [JSON.stringify(ids)];
  let fromWhere = 'FROM namespaces WHERE id IN (SELECT value FROM json_each(?))';
  if (search) {
    const like = `%${search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
    fromWhere += " AND (name LIKE ? ESCAPE '\\' OR path LIKE ? ESCAPE '\\')";
    params.push(like, like);
  }
  return selectPage(db, '*', fromWhere, 'id', params, page);
}
