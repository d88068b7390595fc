import { FilterParser } from 'ldapts';
import { inTransaction, type Db } from '../../../db/connection.js';
import { deleteLdapLinks, findLdapLink, insertLdapLink, ldapLinksOf, type LdapGroupLinkRow, type LdapLinkTarget } from '../../../db/tables/ldap-group-links.js';
import { invalid, notFound } from '../../../errors.js';
import { nowIso } from '../../../storage/clock.js';

export interface LdapLinkInput {
  target: LdapLinkTarget;
  group_access: number;
  provider: string;
}

/**
 * Links an LDAP group (by cn) or the entries an LDAP filter matches to a group; the same cn or
 * filter twice under one provider is a validation error (GITLAB-NOTES 2.1), and so is a filter
 * that does not parse (GitLab's ldap_filter validation).
 */
export function createLdapLink(db: Db, groupId: number, input: LdapLinkInput): LdapGroupLinkRow {
  if ('filter' in input.target && !parses(input.target.filter)) throw invalid({ filter: ['must be a valid filter'] });
  return inTransaction(db, () => {
    const field = 'cn' in input.target ? 'cn' : 'filter';
    if (findLdapLink(db, groupId, input.provider, input.target)) throw invalid({ [field]: ['has already been taken'] });
    const now = nowIso();
    return insertLdapLink(db, { namespace_id: groupId, group_access: input.group_access, provider: input.provider, created_at: now, updated_at: now }, input.target);
  });
}

export const listLdapLinks = (db: Db, groupId: number): LdapGroupLinkRow[] => ldapLinksOf(db, groupId);

/** Removes the group's links with this cn or filter under `provider`, or under any provider when null; 404 `Group Link` when none matched. */
export function deleteLdapLink(db: Db, groupId: number, target: LdapLinkTarget, provider: string | null): void {
  inTransaction(db, () => {
    if (deleteLdapLinks(db, groupId, target, provider) === 0) throw notFound('Group Link');
  });
}

function parses(filter: string): boolean {
  try {
    FilterParser.parseString(filter);
    return true;
  } catch {
    // ldapts throws on any syntax error; the caller answers the validation error.
    return false;
  }
}
