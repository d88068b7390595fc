import type { LdapGroupLinkRow } from '../db/tables/ldap-group-links.js';

/** GitLab's LdapGroupLink entity. */
export const ldapGroupLink = (link: LdapGroupLinkRow) => ({ cn: link.cn, group_access: link.group_access, provider: link.provider });
