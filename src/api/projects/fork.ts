import type { Request, Response } from 'express';
import { forkProject } from '../../services/projects/fork.js';
import type { SiteContext } from '../../site-context.js';
import { projectOf, requireActor } from '../middleware/guards.js';
import { paramsGuard } from '../middleware/value-guards.js';
import { idOrPath, str } from '../params.js';
import { sendProject } from './project-response.js';

/** The target namespace (id or full path), read before fork_project is asked; blank means the caller's own, as an absent one does. */
export const projectForkParams = paramsGuard('projectForkParams', { namespace: str() }, ({ namespace }) => (namespace ? idOrPath(namespace) : undefined));

export function addFork(ctx: SiteContext, req: Request, res: Response): void {
  sendProject(ctx, req, res, 201, forkProject(ctx, requireActor(req), projectOf(req), projectForkParams.of(req)));
}
