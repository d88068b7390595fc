import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

export interface LdapGroupLinkRow {
  id: number;
  namespace_id: number;
  cn: string;
  group_access: number;
  provider: string;
  created_at: string;
  updated_at: string;
}

export function ldapLinksOf(db: Db, namespaceId: number): LdapGroupLinkRow[] {
  return prepare(db, 'SELECT * FROM ldap_group_links WHERE namespace_id = ? ORDER BY id').all(namespaceId) as LdapGroupLinkRow[];
}

export function findLdapLink(db: Db, namespaceId: number, provider: string, cn: string): LdapGroupLinkRow | undefined {
  return prepare(db, 'SELECT * FROM ldap_group_links WHERE namespace_id = ? AND provider = ? AND cn = ?').get(namespaceId, provider, cn) as
    | LdapGroupLinkRow
    | undefined;
}

export function insertLdapLink(db: Db, link: Omit<LdapGroupLinkRow, 'id'>): LdapGroupLinkRow {
  const id = prepare(
    db,
    'INSERT INTO ldap_group_links (namespace_id, cn, group_access, provider, created_at, updated_at) VALUES (@namespace_id, @cn, @group_access, @provider, @created_at, @updated_at)',
  ).run(link).lastInsertRowid;
  return { id: Number(id), ...link };
}

/** Deletes the group's links with this cn, under one provider or (null) under any; returns how many went. */
export function deleteLdapLinks(db: Db, namespaceId: number, cn: string, provider: string | null): number {
  return provider === null
    ? prepare(db, 'DELETE FROM ldap_group_links WHERE namespace_id = ? AND cn = ?').run(namespaceId, cn).changes
    : prepare(db, 'DELETE FROM ldap_group_links WHERE namespace_id = ? AND cn = ? AND provider = ?').run(namespaceId, cn, provider).changes;
}

/** Groups with at least one link under the provider, in id order. */
export function groupIdsLinkedTo(db: Db, provider: string): number[] {
  return prepare(db, 'SELECT DISTINCT namespace_id FROM ldap_group_links WHERE provider = ? ORDER BY namespace_id').pluck().all(provider) as number[];
}
