import type { Request, Response } from 'express';
import { createProject, targetNamespace, type CreateExtras, type ProjectInput } from '../../services/projects/create.js';
import type { Actor } from '../../services/users/authentication.js';
import { getUser } from '../../services/users/users.js';
import type { SiteContext } from '../../site-context.js';
import { requireActor } from '../middleware/guards.js';
import { bool, int, pathInt, readParams, required, requireAtLeastOne, str } from '../params.js';
import { avatarOf, readProjectInput } from './project-input.js';
import { sendProject } from './project-response.js';

/** POST /projects: in the caller's namespace, or the group `namespace_id` names. */
export function addProject(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const actor = requireActor(req);
  const input = readProjectInput(req.input);
  requireAtLeastOne(input, ['name', 'path']);
  return create(ctx, req, res, actor, actor.user.id, input);
}

/** POST /projects/user/:user_id (admins): created for that user, in their namespace by default. */
export function addProjectForUser(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const actor = requireActor(req);
  const user = getUser(ctx.db, pathInt(req.params.user_id, 'user_id'));
  const input = readProjectInput(req.input);
  readParams(req.input, { name: required(str()) });
  return create(ctx, req, res, actor, user.id, input);
}

async function create(ctx: SiteContext, req: Request, res: Response, actor: Actor, creatorId: number, input: ProjectInput): Promise<void> {
  const { namespace_id } = readParams(req.input, { namespace_id: int() });
  const namespace = targetNamespace(ctx.db, actor, creatorId, namespace_id);
  sendProject(ctx, req, res, 201, await createProject(ctx, { actor, creatorId, namespace }, input, readExtras(req)));
}

function readExtras(req: Request): CreateExtras {
  const avatar = avatarOf(req);
  const { initialize_with_readme: initializeWithReadme } = readParams(req.input, { initialize_with_readme: bool() });
  return { avatar, initializeWithReadme };
}
