import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

export interface LdapGroupLinkRow {
  id: number;
  namespace_id: number;
  /** '' for a filter link. */
  cn: string;
  /** The LDAP filter whose matching entries are the members; null for a cn link. */
  filter: string | null;
  group_access: number;
  provider: string;
  created_at: string;
  updated_at: string;
}

export function ldapLinksOf(db: Db, namespaceId: number): LdapGroupLinkRow[] {
  return prepare(db, 'SELECT * FROM ldap_group_links WHERE namespace_id = ? ORDER BY id').all(namespaceId) as LdapGroupLinkRow[];
}

/** A link names an LDAP group by cn or a filter of user entries. */
export type LdapLinkTarget = { cn: string } | { filter: string };

const targetColumns = (target: LdapLinkTarget) => ('cn' in target ? { cn: target.cn, filter: null } : { cn: '', filter: target.filter });
const targetCondition = (target: LdapLinkTarget) => ('cn' in target ? 'filter IS NULL AND cn = @cn' : 'filter = @filter');

export function findLdapLink(db: Db, namespaceId: number, provider: string, target: LdapLinkTarget): LdapGroupLinkRow | undefined {
  return prepare(db, `SELECT * FROM ldap_group_links WHERE namespace_id = @namespace AND provider = @provider AND ${targetCondition(target)}`).get({
    namespace: namespaceId,
    provider,
    ...targetColumns(target),
  }) as LdapGroupLinkRow | undefined;
}

export function insertLdapLink(db: Db, link: Omit<LdapGroupLinkRow, 'id' | 'cn' | 'filter'>, target: LdapLinkTarget): LdapGroupLinkRow {
  const row = { ...link, ...targetColumns(target) };
  const id = prepare(
    db,
    'INSERT INTO ldap_group_links (namespace_id, cn, filter, group_access, provider, created_at, updated_at) VALUES (@namespace_id, @cn, @filter, @group_access, @provider, @created_at, @updated_at)',
  ).run(row).lastInsertRowid;
  return { id: Number(id), ...row };
}

/** Deletes the group's links with this cn or filter, under one provider or (null) under any; returns how many went. */
export function deleteLdapLinks(db: Db, namespaceId: number, target: LdapLinkTarget, provider: string | null): number {
  const byProvider = provider === null ? '' : ' AND provider = @provider';
  return prepare(db, `DELETE FROM ldap_group_links WHERE namespace_id = @namespace AND ${targetCondition(target)}${byProvider}`).run({
    namespace: namespaceId,
    provider,
    ...targetColumns(target),
  }).changes;
}

/** Groups with at least one link under the provider, in id order. */
export function groupIdsLinkedTo(db: Db, provider: string): number[] {
  return prepare(db, 'SELECT DISTINCT namespace_id FROM ldap_group_links WHERE provider = ? ORDER BY namespace_id').pluck().all(provider) as number[];
}
