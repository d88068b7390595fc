import { Router } from 'express';
import { listProjects, transferProject } from '../../services/projects/projects.js';
import { findVisibleGroup, findVisibleProject } from '../../services/find-visible.js';
import type { SiteContext } from '../../site-context.js';
import { groupDetailOf } from './groups.js';
import { requireAdmin } from '../middleware/guards.js';
import { idOrPath } from '../params.js';
import { sendJson } from '../respond.js';
import { sendProjects } from '../projects/list-response.js';

/** A group's projects (SPEC: GET /groups/:id/projects) and the admin transfer of a project into a group. */
export function groupProjectsRouter(ctx: SiteContext): Router {
  const router = Router();
  router.get('/groups/:id/projects', (req, res) => {
    const group = findVisibleGroup(ctx.db, req.actor, idOrPath(String(req.params.id)));
    return sendProjects(ctx, req, res, (filters, page) => listProjects(ctx.db, req.actor, { ...filters, namespaceId: group.id }, page));
  });
  router.post('/groups/:id/projects/:project_id', (req, res) => {
    const actor = requireAdmin(req);
    const group = findVisibleGroup(ctx.db, actor, idOrPath(String(req.params.id)));
    const project = findVisibleProject(ctx.db, actor, idOrPath(String(req.params.project_id)));
    transferProject(ctx.db, project, group);
    // GitLab answers a transfer with the group's GroupDetail (GITLAB-NOTES 2.1).
    sendJson(res, 201, groupDetailOf(ctx, actor, group));
  });
  return router;
}
