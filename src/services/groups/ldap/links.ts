import { inTransaction, type Db } from '../../../db/connection.js';
import { deleteLdapLinks, findLdapLink, insertLdapLink, ldapLinksOf, type LdapGroupLinkRow } from '../../../db/tables/ldap-group-links.js';
import { invalid, notFound } from '../../../errors.js';
import { nowIso } from '../../../storage/clock.js';

export interface LdapLinkInput {
  cn: string;
  group_access: number;
  provider: string;
}

/** Links an LDAP group to a group; the same cn twice under one provider is a validation error (GITLAB-NOTES 2.1). */
export function createLdapLink(db: Db, groupId: number, input: LdapLinkInput): LdapGroupLinkRow {
  return inTransaction(db, () => {
    if (findLdapLink(db, groupId, input.provider, input.cn)) throw invalid({ cn: ['has already been taken'] });
    const now = nowIso();
    return insertLdapLink(db, { namespace_id: groupId, ...input, created_at: now, updated_at: now });
  });
}

export const listLdapLinks = (db: Db, groupId: number): LdapGroupLinkRow[] => ldapLinksOf(db, groupId);

/** Removes the group's links with this cn under `provider`, or under any provider when null; 404 `Group Link` when none matched. */
export function deleteLdapLink(db: Db, groupId: number, cn: string, provider: string | null): void {
  inTransaction(db, () => {
    if (deleteLdapLinks(db, groupId, cn, provider) === 0) throw notFound('Group Link');
  });
}
