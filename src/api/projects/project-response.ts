import type { Request, Response } from 'express';
import type { ProjectRow } from '../../db/tables/projects.js';
import { projectView } from '../../entities/projects.js';
import { loadProjectRelations } from '../../services/projects/relations.js';
import type { SiteContext } from '../../site-context.js';
import { sendJson } from '../respond.js';

/** One project as a create, update, fork, star or archive answers it (GITLAB-NOTES 2.2). */
export function sendProject(ctx: SiteContext, req: Request, res: Response, status: number, project: ProjectRow): void {
  sendJson(res, status, projectView(project, loadProjectRelations(ctx.db, req.actor, [project]), ctx));
}
