import type { Request, Response } from 'express';
import { projectBasic, projectWithAccess } from '../../entities/projects.js';
import { userBasic } from '../../entities/users.js';
import { listProjectUsers } from '../../services/projects/projects.js';
import { loadProjectRelations, withStatistics } from '../../services/projects/relations.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf } from '../middleware/guards.js';
import { paged, sendPage } from '../pagination.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { bool, str } from '../params.js';

export const projectShowParams = paramsGuard('projectShowParams', { statistics: bool() });
export const projectUsersParams = paramsGuard('projectUsersParams', { search: str() });
import { sendJson } from '../respond.js';

/** GET /projects/:id: BasicProjectDetails for anonymous callers, ProjectWithAccess otherwise (GITLAB-NOTES 2.2). */
export async function showProject(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const project = projectOf(req);
  const { statistics } = projectShowParams.of(req);
  let rel = loadProjectRelations(ctx.db, req.actor, [project]);
  if (statistics && req.actor) rel = await withStatistics(rel, ctx.config.dataDir, [project], ctx.db);
  sendJson(res, 200, req.actor ? projectWithAccess(project, rel, ctx) : projectBasic(project, rel, ctx));
}

/** GET /projects/:id/users: the project's team. */
export function listUsers(ctx: SiteContext, req: Request, res: Response): void {
  const { search } = projectUsersParams.of(req);
  const page = paged.of(req);
  const result = listProjectUsers(ctx.db, projectOf(req), search, page);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((user) => userBasic(user, ctx)), result.total);
}
