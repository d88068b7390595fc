import type { Request, Response } from 'express';
import type { NamespaceRow } from '../../db/tables/namespaces.js';
import { namespace } from '../../entities/namespaces.js';
import type { Actor } from '../../services/users/authentication.js';
import { getNamespace, listNamespaces, membersCountsWithDescendants } from '../../services/groups/namespaces.js';
import { isAdmin } from '../../services/permissions.js';
import type { SiteContext } from '../../site-context.js';
import { requireActor } from '../middleware/guards.js';
import { paged, sendPage } from '../pagination.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { idOrPath, str } from '../params.js';

export const namespaceListParams = paramsGuard('namespaceListParams', { search: str() });
import { sendJson } from '../respond.js';

/** The namespaces the caller may put projects in: their own and their groups' (all of them for admins). */
export function listMyNamespaces(ctx: SiteContext, req: Request, res: Response): void {
  const actor = requireActor(req);
  const { search } = namespaceListParams.of(req);
  const page = paged.of(req);
  const result = listNamespaces(ctx.db, actor, search, page);
  sendPage(req, res, ctx.externalUrl, page, namespaceViews(ctx, actor, result.rows), result.total);
}

/** One namespace, a user's or a group's, by numeric id or URL-encoded full path. */
export function showNamespace(ctx: SiteContext, req: Request, res: Response): void {
  const actor = requireActor(req);
  sendJson(res, 200, namespaceViews(ctx, actor, [getNamespace(ctx.db, actor, idOrPath(String(req.params.id)))])[0]);
}

/** Admins also see how many members each group has with its subgroups (GitLab exposes it to group admins). */
function namespaceViews(ctx: SiteContext, actor: Actor, rows: NamespaceRow[]) {
  const counts = isAdmin(actor) ? membersCountsWithDescendants(ctx.db, rows) : new Map<number, number>();
  return rows.map((row) => namespace(row, ctx, counts.get(row.id)));
}
