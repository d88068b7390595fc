import type { LdapGroupLinkRow } from '../db/tables/ldap-group-links.js';

/** GitLab's LdapGroupLink entity: `cn` or `filter`, the other null. */
export const ldapGroupLink = (link: LdapGroupLinkRow) => ({
  cn: link.filter === null ? link.cn : null,
  group_access: link.group_access,
  provider: link.provider,
  filter: link.filter,
});
