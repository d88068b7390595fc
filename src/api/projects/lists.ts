import type { Request, Response } from 'express';
import { findUserNamespace } from '../../db/tables/namespaces.js';
import { notFound } from '../../errors.js';
import { listProjects } from '../../services/projects/projects.js';
import { getUserByIdOrUsername } from '../../services/users/users.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf } from '../middleware/guards.js';
import { sendProjects } from './list-response.js';

export function listAllProjects(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  return sendProjects(ctx, req, res, (filters, page) => listProjects(ctx.db, req.actor, filters, page));
}

export function listUserProjects(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const user = getUserByIdOrUsername(ctx.db, String(req.params.user_id));
  return sendProjects(ctx, req, res, (filters, page) => listProjects(ctx.db, req.actor, { ...filters, namespaceId: userNamespaceId(ctx, user.id) }, page));
}

export function listForks(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const parent = projectOf(req);
  return sendProjects(ctx, req, res, (filters, page) => listProjects(ctx.db, req.actor, { ...filters, forkedFromId: parent.id }, page));
}

function userNamespaceId(ctx: SiteContext, userId: number): number {
  const namespace = findUserNamespace(ctx.db, userId);
  if (!namespace) throw notFound('Namespace');
  return namespace.id;
}
