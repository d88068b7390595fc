import type { Request, Response } from 'express';
import { createProject, targetNamespace, type CreateExtras, type ProjectInput } from '../../services/projects/create.js';
import type { Actor } from '../../services/users/authentication.js';
import { getUser } from '../../services/users/users.js';
import type { SiteContext } from '../../site-context.js';
import { requireActor } from '../middleware/guards.js';
import { avatarFile, paramsGuard, pathId } from '../middleware/value-guards.js';
import { bool, int, required, requireAtLeastOne, str, type Parsed } from '../params.js';
import { PROJECT_PARAMS, projectInputOf } from './project-input.js';
import { sendProject } from './project-response.js';

const CREATE_PARAMS = { ...PROJECT_PARAMS, namespace_id: int(), initialize_with_readme: bool() };

interface Creation {
  input: ProjectInput;
  namespaceId: number | undefined;
  initializeWithReadme: boolean | undefined;
}

const creationOf = ({ namespace_id, initialize_with_readme, ...params }: Parsed<typeof CREATE_PARAMS>): Creation => ({
  input: projectInputOf(params),
  namespaceId: namespace_id,
  initializeWithReadme: initialize_with_readme,
});

/** POST /projects: `name` or `path`. */
export const projectCreateParams = paramsGuard('projectCreateParams', CREATE_PARAMS, (params) => {
  const creation = creationOf(params);
  requireAtLeastOne(creation.input, ['name', 'path']);
  return creation;
});

/** POST /projects/user/:user_id: `name` (400 `name is missing`). */
/** The `:user_id` of POST /projects/user/:user_id. */
export const projectOwnerIdParam = pathId('user_id');
export const projectCreateForUserParams = paramsGuard('projectCreateForUserParams', { ...CREATE_PARAMS, name: required(str()) }, creationOf);

/** POST /projects: in the caller's namespace, or the group `namespace_id` names. */
export function addProject(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const actor = requireActor(req);
  return create(ctx, req, res, actor, actor.user.id, projectCreateParams.of(req));
}

/** POST /projects/user/:user_id (admins): created for that user, in their namespace by default. */
export function addProjectForUser(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const actor = requireActor(req);
  const user = getUser(ctx.db, projectOwnerIdParam.of(req));
  return create(ctx, req, res, actor, user.id, projectCreateForUserParams.of(req));
}

async function create(ctx: SiteContext, req: Request, res: Response, actor: Actor, creatorId: number, creation: Creation): Promise<void> {
  const namespace = targetNamespace(ctx.db, actor, creatorId, creation.namespaceId);
  const extras: CreateExtras = { avatar: avatarFile.of(req), initializeWithReadme: creation.initializeWithReadme };
  sendProject(ctx, req, res, 201, await createProject(ctx, { actor, creatorId, namespace }, creation.input, extras));
}
