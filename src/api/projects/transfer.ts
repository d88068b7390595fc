import type { Request, Response } from 'express';
import { findProjectById } from '../../db/tables/projects.js';
import { group } from '../../entities/groups.js';
import { projectWithAccess } from '../../entities/projects.js';
import { getNamespace } from '../../services/groups/namespaces.js';
import { listProjectGroups } from '../../services/projects/project-groups.js';
import { transferProjectAs } from '../../services/projects/projects.js';
import { loadProjectRelations } from '../../services/projects/relations.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { paged, sendPage } from '../pagination.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { bool, idOrPath, int, list, required, str } from '../params.js';

export const projectTransferParams = paramsGuard('projectTransferParams', { namespace: required(str()) });
export const projectGroupsParams = paramsGuard('projectGroupsParams', { search: str(), skip_groups: list(int()), with_shared: bool(), shared_min_access_level: int({ min: 0, max: 50 }) });
import { sendJson } from '../respond.js';

/** PUT /projects/:id/transfer: `namespace` an id or a full path (404 `Namespace` when missing or invisible); answers the moved project. */
export function transferProjectHandler(ctx: SiteContext, req: Request, res: Response): void {
  const actor = requireActor(req);
  const { namespace } = projectTransferParams.of(req);
  const target = getNamespace(ctx.db, actor, idOrPath(namespace));
  const moved = transferProjectAs(ctx.db, actor, projectOf(req), target);
  const row = findProjectById(ctx.db, moved.id) ?? moved;
  sendJson(res, 200, projectWithAccess(row, loadProjectRelations(ctx.db, actor, [row]), ctx));
}

/** GET /projects/:id/groups: the project's group and its ancestors (and, with `with_shared`, its shares) the caller may read, as GitLab's PublicGroupDetails. */
export function listGroupsOfProject(ctx: SiteContext, req: Request, res: Response): void {
  const params = projectGroupsParams.of(req);
  const page = paged.of(req);
  const filters = { search: params.search || undefined, skipGroups: params.skip_groups, withShared: params.with_shared ?? false, sharedMinAccessLevel: params.shared_min_access_level ?? 0 };
  const result = listProjectGroups(ctx.db, req.actor ?? null, projectOf(req), filters, page);
  const views = result.rows.map((row) => {
    const { id, name, web_url, avatar_url, full_name, full_path } = group(row, ctx);
    return { id, name, web_url, avatar_url, full_name, full_path };
  });
  sendPage(req, res, ctx.externalUrl, page, views, result.total);
}
