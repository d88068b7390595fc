import type { Request, Response } from 'express';
import { listProjects, transferProject } from '../../services/projects/projects.js';
import type { SiteContext } from '../../site-context.js';
import { groupOf, projectOf, requireActor } from '../middleware/guards.js';
import { sendJson } from '../respond.js';
import { sendProjects } from '../projects/list-response.js';
import { groupDetailOf } from './groups.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { bool } from '../params.js';

/** What a group's project list adds to the project filters: its subgroups' projects, and whether shared ones count (GitLab's default). */
export const groupProjectsScope = paramsGuard('groupProjectsScope', { include_subgroups: bool(), with_shared: bool() }, (params) => ({
  includeSubgroups: params.include_subgroups === true,
  withShared: params.with_shared !== false,
}));

/** SPEC: GET /groups/:id/projects, the projects of the group (and those shared with it) the caller may see. */
export function listGroupProjects(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const group = groupOf(req);
  const scope = groupProjectsScope.of(req);
  return sendProjects(ctx, req, res, (filters, page) => listProjects(ctx.db, req.actor, { ...filters, ...scope, namespaceId: group.id }, page));
}

/** The admin transfer of a project into a group; GitLab answers with the group's GroupDetail (GITLAB-NOTES 2.1). */
export function transferProjectToGroup(ctx: SiteContext, req: Request, res: Response): void {
  const group = groupOf(req);
  transferProject(ctx.db, projectOf(req), group);
  sendJson(res, 201, groupDetailOf(ctx, requireActor(req), group));
}
