import type { Request, Response } from 'express';
import { ldapGroupLink } from '../../entities/ldap-group-links.js';
import { badRequest, notFound } from '../../errors.js';
import { createLdapLink, deleteLdapLink, listLdapLinks, type LdapLinkInput } from '../../services/groups/ldap/links.js';
import type { LdapLinkTarget } from '../../db/tables/ldap-group-links.js';
import { syncLdap } from '../../services/groups/ldap/sync.js';
import { ACCESS_LEVELS } from '../../db/levels.js';
import type { SiteContext } from '../../site-context.js';
import { groupOf } from '../middleware/guards.js';
import { intOneOf, required, str } from '../params.js';
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

/** python-gitlab's modern form: DELETE /groups/:id/ldap_group_links?cn=...&provider=... (or filter=... for a filter link) */
export function removeLinkByQuery(ctx: SiteContext, req: Request, res: Response): void {
  const { target, provider } = ldapGroupLinkQueryParams.of(req);
  deleteLdapLink(ctx.db, groupOf(req).id, target, provider ?? null);
  sendNoContent(res);
}

export function removeLinkByCn(ctx: SiteContext, req: Request, res: Response): void {
  deleteLdapLink(ctx.db, groupOf(req).id, { cn: String(req.params.cn) }, null);
  sendNoContent(res);
}

export function removeLinkByProviderAndCn(ctx: SiteContext, req: Request, res: Response): void {
  deleteLdapLink(ctx.db, groupOf(req).id, { cn: String(req.params.cn) }, String(req.params.provider));
  sendNoContent(res);
}

/** A link's cn or filter: one of them (Grape's mutually_exclusive and at_least_one_of, in that order). */
function linkTarget(params: { cn?: string; filter?: string }): LdapLinkTarget {
  if (params.cn !== undefined && params.filter !== undefined) throw badRequest('cn, filter are mutually exclusive');
  if (params.cn !== undefined) return { cn: params.cn };
  if (params.filter !== undefined) return { filter: params.filter };
  throw badRequest('cn, filter are missing, at least one parameter must be provided');
}

/** Grape validates parameters before the endpoint finds its group: these read them ahead of loadGroup (400 before 404 and 403). */
export const ldapGroupLinkParams = paramsGuard(
  'ldapGroupLinkParams',
  { cn: str(), filter: str(), group_access: required(intOneOf(ACCESS_LEVELS)), provider: required(str()) },
  (params): LdapLinkInput => ({ target: linkTarget(params), group_access: params.group_access, provider: params.provider }),
);
export const ldapGroupLinkQueryParams = paramsGuard('ldapGroupLinkQueryParams', { cn: str(), filter: str(), provider: str() }, (params) => ({
  target: linkTarget(params),
  provider: params.provider,
}));
