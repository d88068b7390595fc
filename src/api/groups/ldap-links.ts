import type { Request, Response } from 'express';
import { ldapGroupLink } from '../../entities/ldap-group-links.js';
import { badRequest, notFound } from '../../errors.js';
import { createLdapLink, deleteLdapLink, listLdapLinks } from '../../services/groups/ldap/links.js';
import { syncLdap } from '../../services/groups/ldap/sync.js';
import { ACCESS } from '../../db/levels.js';
import type { SiteContext } from '../../site-context.js';
import { groupOf } from '../middleware/guards.js';
import { int, required, str, type Reader } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';
import { paramsGuard } from '../middleware/value-guards.js';
import type { Guard } from '../routes.js';

/** GitLab answers 404 before it looks the group up when group sync is not configured. */
export const ldapConfigured: Guard = {
  name: 'ldapConfigured',
  check: (ctx) => {
    if (!ctx.config.ldap) throw notFound();
  },
};

/** Runs the sync before answering, so that the 202 means "done"; clients ignore the empty body. */
export async function syncGroupWithLdap(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  // The route's ldapConfigured guard has answered 404 when ctx.config.ldap is unset.
  await syncLdap(ctx.db, ctx.config.ldap!, { groupId: groupOf(req).id });
  res.statusCode = 202;
  res.end();
}

export function listLinks(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 200, listLdapLinks(ctx.db, groupOf(req).id).map(ldapGroupLink));
}

export function addLink(ctx: SiteContext, req: Request, res: Response): void {
  sendJson(res, 201, ldapGroupLink(createLdapLink(ctx.db, groupOf(req).id, ldapGroupLinkParams.of(req))));
}

/** python-gitlab's modern form: DELETE /groups/:id/ldap_group_links?cn=...&provider=... */
export function removeLinkByQuery(ctx: SiteContext, req: Request, res: Response): void {
  const { cn, provider } = ldapGroupLinkQueryParams.of(req);
  deleteLdapLink(ctx.db, groupOf(req).id, cn, provider ?? null);
  sendNoContent(res);
}

export function removeLinkByCn(ctx: SiteContext, req: Request, res: Response): void {
  deleteLdapLink(ctx.db, groupOf(req).id, String(req.params.cn), null);
  sendNoContent(res);
}

export function removeLinkByProviderAndCn(ctx: SiteContext, req: Request, res: Response): void {
  deleteLdapLink(ctx.db, groupOf(req).id, String(req.params.cn), String(req.params.provider));
  sendNoContent(res);
}

/** Grape validates parameters before the endpoint finds its group: these read them ahead of loadGroup (400 before 404 and 403). */
export const ldapGroupLinkParams = paramsGuard('ldapGroupLinkParams', { cn: required(str()), group_access: required(accessLevel()), provider: required(str()) });
export const ldapGroupLinkQueryParams = paramsGuard('ldapGroupLinkQueryParams', { cn: required(str()), provider: str() });

const LINK_LEVELS: readonly number[] = [ACCESS.guest, ACCESS.reporter, ACCESS.developer, ACCESS.maintainer, ACCESS.owner];

/** GitLab's `values: Gitlab::Access.all_values`: 10, 20, 30, 40 or 50. */
function accessLevel(): Reader<number | undefined> {
  const read = int();
  return (raw, name) => {
    const value = read(raw, name);
    if (value !== undefined && !LINK_LEVELS.includes(value)) throw badRequest(`${name} does not have a valid value`);
    return value;
  };
}
