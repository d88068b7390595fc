import type { Request, Response } from 'express';
import { listProjects, transferProject } from '../../services/projects/projects.js';
import type { SiteContext } from '../../site-context.js';
import { groupOf, projectOf, requireActor } from '../middleware/guards.js';
import { sendJson } from '../respond.js';
import { sendProjects } from '../projects/list-response.js';
import { groupDetailOf } from './groups.js';

/** SPEC: GET /groups/:id/projects, the projects of the group the caller may see. */
export function listGroupProjects(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const group = groupOf(req);
  return sendProjects(ctx, req, res, (filters, page) => listProjects(ctx.db, req.actor, { ...filters, namespaceId: group.id }, page));
}

/** The admin transfer of a project into a group; GitLab answers with the group's GroupDetail (GITLAB-NOTES 2.1). */
export function transferProjectToGroup(ctx: SiteContext, req: Request, res: Response): void {
  const group = groupOf(req);
  transferProject(ctx.db, projectOf(req), group);
  sendJson(res, 201, groupDetailOf(ctx, requireActor(req), group));
}
