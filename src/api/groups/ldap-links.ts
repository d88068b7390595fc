import { Router, type Request } from 'express';
import { ldapGroupLink } from '../../entities/ldap-group-links.js';
import { badRequest, forbidden, notFound } from '../../errors.js';
import type { NamespaceRow } from '../../db/tables/namespaces.js';
import { createLdapLink, deleteLdapLink, listLdapLinks } from '../../services/groups/ldap/links.js';
import { syncLdap } from '../../services/groups/ldap/sync.js';
import { ACCESS, can } from '../../services/permissions.js';
import { findVisibleGroup } from '../../services/find-visible.js';
import type { SiteContext } from '../../site-context.js';
import { requireActor } from '../middleware/guards.js';
import { idOrPath, int, readParams, required, str, type Reader } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';

/**
 * LDAP group sync and group links (SPEC: Groups; GITLAB-NOTES 2.1). Both are GitLab's
 * admin_group: owners and administrators, the `ldap_sync` ability.
 */
export function groupLdapRouter(ctx: SiteContext): Router {
  const router = Router();
  router.post('/groups/:id/ldap_sync', async (req, res) => {
    requireActor(req);
    // GitLab answers 404 before it looks the group up when group sync is not configured.
    const ldap = ctx.config.ldap;
    if (!ldap) throw notFound();
    const group = ldapManagedGroup(ctx, req);
    // Runs before answering so that the 202 means "done"; clients ignore the empty body.
    await syncLdap(ctx.db, ldap, { groupId: group.id });
    res.statusCode = 202;
    res.end();
  });
  router.get('/groups/:id/ldap_group_links', (req, res) => {
    sendJson(res, 200, listLdapLinks(ctx.db, ldapManagedGroup(ctx, req).id).map(ldapGroupLink));
  });
  router.post('/groups/:id/ldap_group_links', (req, res) => {
    requireActor(req);
    const input = readParams(req.input, { cn: required(str()), group_access: required(accessLevel()), provider: required(str()) });
    sendJson(res, 201, ldapGroupLink(createLdapLink(ctx.db, ldapManagedGroup(ctx, req).id, input)));
  });
  // python-gitlab's modern form: DELETE /groups/:id/ldap_group_links?cn=...&provider=...
  router.delete('/groups/:id/ldap_group_links', (req, res) => {
    requireActor(req);
    const { cn, provider } = readParams(req.input, { cn: required(str()), provider: str() });
    deleteLdapLink(ctx.db, ldapManagedGroup(ctx, req).id, cn, provider ?? null);
    sendNoContent(res);
  });
  router.delete('/groups/:id/ldap_group_links/:cn', (req, res) => {
    deleteLdapLink(ctx.db, ldapManagedGroup(ctx, req).id, String(req.params.cn), null);
    sendNoContent(res);
  });
  router.delete('/groups/:id/ldap_group_links/:provider/:cn', (req, res) => {
    deleteLdapLink(ctx.db, ldapManagedGroup(ctx, req).id, String(req.params.cn), String(req.params.provider));
    sendNoContent(res);
  });
  return router;
}

/** The group in the path, for its owners and administrators: 401, then 404 `Group` when not visible, then 403. */
function ldapManagedGroup(ctx: SiteContext, req: Request): NamespaceRow {
  const actor = requireActor(req);
  const group = findVisibleGroup(ctx.db, actor, idOrPath(String(req.params.id)));
  if (!can(ctx.db, actor, 'admin_group', group)) throw forbidden();
  return group;
}

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
