import { Router, type Request, type Response } from 'express';
import path from 'node:path';
import { findProjectById, type ProjectRow } from '../../db/tables/projects.js';
import { projectBasic, projectGroupLink, projectView, projectWithAccess } from '../../entities/projects.js';
import { userBasic } from '../../entities/users.js';
import { badRequest, notFound } from '../../errors.js';
import type { ReadRouting } from '../geo/read-routing.js';
import type { Actor } from '../../services/users/authentication.js';
import { assertAvatar } from '../../services/avatars.js';
import { projectAvatarDir } from '../../storage/layout.js';
import { VISIBILITY, VISIBILITY_NAMES } from '../../services/permissions.js';
import { createProject, PROJECT_FLAGS, targetNamespace, type ProjectInput } from '../../services/projects/create.js';
import { forkProject } from '../../services/projects/fork.js';
import { loadProjectRelations, withStatistics } from '../../services/projects/relations.js';
import {
  deleteProjectAs,
  listProjects,
  listProjectUsers,
  setProjectArchived,
  setProjectAvatar,
  setProjectStar,
  shareProject,
  unshareProject,
  updateProject,
} from '../../services/projects/projects.js';
import { writeCommit } from '../../services/repository/commit-writer.js';
import { findVisibleProject } from '../../services/find-visible.js';
import { getUser } from '../../services/users/users.js';
import { findUserByUsername } from '../../db/tables/users.js';
import { findUserNamespace } from '../../db/tables/namespaces.js';
import type { SiteContext } from '../../site-context.js';
import { customAttributesRouter } from '../custom-attributes.js';
import { requireActor, requireAdmin } from '../middleware/guards.js';
import { readPage, sendPage } from '../pagination.js';
import { bool, date, idOrPath, int, list, oneOf, pathInt, readParams, required, requireAtLeastOne, str, type Input, type Reader } from '../params.js';
import { sendJson, sendNoContent, sendStoredFile } from '../respond.js';
import { groupProjectsRouter } from '../groups/group-projects.js';
import { sendProjects } from './list-response.js';

/** Projects (SPEC: Projects; GITLAB-NOTES 2.2): lists, one project, create, update, delete, star, archive, share. */
export function projectsRouter(ctx: SiteContext): Router {
  const router = Router();
  const project = (req: Request) => findVisibleProject(ctx.db, req.actor, idOrPath(String(req.params.id)));
  const one = (req: Request, res: Response, status: number, row: ProjectRow) => {
    sendJson(res, status, projectView(row, loadProjectRelations(ctx.db, req.actor, [row]), ctx));
  };

  router.get('/projects', (req, res) => sendProjects(ctx, req, res, (filters, page) => listProjects(ctx.db, req.actor, filters, page)));
  router.get('/users/:user_id/projects', (req, res) => {
    const user = userByIdOrUsername(ctx, String(req.params.user_id));
    return sendProjects(ctx, req, res, (filters, page) => listProjects(ctx.db, req.actor, { ...filters, namespaceId: userNamespaceId(ctx, user.id) }, page));
  });
  router.get('/projects/:id/forks', (req, res) => {
    const parent = project(req);
    return sendProjects(ctx, req, res, (filters, page) => listProjects(ctx.db, req.actor, { ...filters, forkedFromId: parent.id }, page));
  });
  router.get('/projects/:id', async (req, res) => {
    const row = project(req);
    const { statistics } = readParams(req.input, { statistics: bool() });
    let rel = loadProjectRelations(ctx.db, req.actor, [row]);
    if (statistics && req.actor) rel = await withStatistics(rel, ctx.config.dataDir, [row], ctx.db);
    sendJson(res, 200, req.actor ? projectWithAccess(row, rel, ctx) : projectBasic(row, rel, ctx));
  });
  router.get('/projects/:id/users', (req, res) => {
    const row = project(req);
    const { search } = readParams(req.input, { search: str() });
    const page = readPage(req.input);
    const result = listProjectUsers(ctx.db, row, search, page);
    sendPage(req, res, ctx.externalUrl, page, result.rows.map((user) => userBasic(user, ctx)), result.total);
  });

  router.post('/projects', async (req, res) => {
    const actor = requireActor(req);
    const input = readProjectInput(req.input);
    requireAtLeastOne(input, ['name', 'path']);
    const { namespace_id } = readParams(req.input, { namespace_id: int() });
    const namespace = targetNamespace(ctx.db, actor, actor.user.id, namespace_id);
    one(req, res, 201, await createWithAvatar(ctx, req, actor, actor.user.id, namespace, input));
  });
  router.post('/projects/user/:user_id', async (req, res) => {
    const actor = requireAdmin(req);
    const user = getUser(ctx.db, pathInt(req.params.user_id, 'user_id'));
    const input = readProjectInput(req.input);
    readParams(req.input, { name: required(str()) });
    const { namespace_id } = readParams(req.input, { namespace_id: int() });
    const namespace = targetNamespace(ctx.db, actor, user.id, namespace_id);
    one(req, res, 201, await createWithAvatar(ctx, req, actor, user.id, namespace, input));
  });
  router.put('/projects/:id', async (req, res) => {
    const actor = requireActor(req);
    const row = project(req);
    // SPEC: an update takes the create parameters except namespace_id and printing_merge_request_link_enabled.
    const { printing_merge_request_link_enabled: _ignored, ...input } = readProjectInput(req.input);
    const avatar = avatarOf(req);
    requireAtLeastOne({ ...input, avatar }, UPDATE_ATTRIBUTES);
    let updated = await updateProject(ctx.db, ctx.config.dataDir, actor, row, input);
    if (avatar) updated = await setProjectAvatar(ctx.db, ctx.config.dataDir, updated.id, avatar);
    one(req, res, 200, updated);
  });
  router.delete('/projects/:id', async (req, res) => {
    const actor = requireActor(req);
    await deleteProjectAs(ctx.db, ctx.config.dataDir, actor, project(req));
    sendJson(res, 202, { message: '202 Accepted' });
  });

  router.post('/projects/:id/fork', (req, res) => {
    const actor = requireActor(req);
    const source = project(req);
    const { namespace } = readParams(req.input, { namespace: str() });
    // Blank means the caller's own namespace, as an absent one does.
    const fork = forkProject(ctx.db, actor, source, namespace ? idOrPath(namespace) : undefined);
    ctx.imports.schedule(fork.id);
    one(req, res, 201, fork);
  });
  for (const [action, starred] of [['star', true], ['unstar', false]] as const) {
    router.post(`/projects/:id/${action}`, (req, res) => {
      const actor = requireActor(req);
      one(req, res, 201, setProjectStar(ctx.db, actor, project(req), starred));
    });
  }
  for (const [action, archived] of [['archive', true], ['unarchive', false]] as const) {
    router.post(`/projects/:id/${action}`, (req, res) => {
      const actor = requireActor(req);
      one(req, res, 201, setProjectArchived(ctx.db, actor, project(req), archived));
    });
  }
  router.post('/projects/:id/share', (req, res) => {
    const actor = requireActor(req);
    const row = project(req);
    const params = readParams(req.input, { group_id: required(int()), group_access: required(shareAccess()), expires_at: date() });
    const link = shareProject(ctx.db, actor, row, { groupId: params.group_id, groupAccess: params.group_access, expiresAt: params.expires_at });
    sendJson(res, 201, projectGroupLink(link));
  });
  router.delete('/projects/:id/share/:group_id', (req, res) => {
    const actor = requireActor(req);
    unshareProject(ctx.db, actor, project(req), pathInt(req.params.group_id, 'group_id'));
    sendNoContent(res);
  });

  router.use(groupProjectsRouter(ctx));
  router.use(
    customAttributesRouter(ctx, {
      base: '/projects/:id',
      owner: { table: 'project_custom_attributes', column: 'project_id' },
      resolveOwner: (db, req) => findVisibleProject(db, req.actor, idOrPath(String(req.params.id))).id,
    }),
  );
  return router;
}

/** Project shares grant guest to maintainer; owner (50) is for group members only (GITLAB-NOTES 1.5). */
function shareAccess(): Reader<number | undefined> {
  const read = int();
  return (raw, name) => {
    const value = read(raw, name);
    if (value !== undefined && ![10, 20, 30, 40].includes(value)) throw badRequest(`${name} does not have a valid value`);
    return value;
  };
}


/** The create and update attributes (SPEC: create parameters). */
function readProjectInput(input: Input): ProjectInput {
  const flags = Object.fromEntries(PROJECT_FLAGS.map((flag) => [flag, bool()])) as Record<(typeof PROJECT_FLAGS)[number], Reader<boolean | undefined>>;
  const params = readParams(input, {
    ...flags,
    name: str(),
    path: str(),
    description: str(),
    default_branch: str(),
    visibility: oneOf(VISIBILITY_NAMES),
    tag_list: list(str()),
    import_url: str(),
    ci_config_path: str(),
    repository_storage: str(),
    approvals_before_merge: int(),
  });
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined)) as ProjectInput;
}

/** GitLab's at_least_one_of list for an update. */
const UPDATE_ATTRIBUTES = [
  'name',
  'path',
  'description',
  'default_branch',
  ...PROJECT_FLAGS.filter((flag) => flag !== 'printing_merge_request_link_enabled'),
  'visibility',
  'tag_list',
  'avatar',
  'ci_config_path',
  'repository_storage',
  'approvals_before_merge',
];

async function createWithAvatar(ctx: SiteContext, req: Request, actor: Actor, creatorId: number, namespace: Parameters<typeof createProject>[2]['namespace'], input: ProjectInput) {
  const avatar = avatarOf(req);
  const { initialize_with_readme: withReadme } = readParams(req.input, { initialize_with_readme: bool() });
  const created = await createProject(ctx.db, ctx.config.dataDir, { actor, creatorId, namespace }, input);
  // An import_url project has no repository yet: the worker clones it.
  if (created.import_status === 'scheduled') ctx.imports.schedule(created.id);
  // GitLab's initialize_with_readme: a first commit with a README on the default branch.
  else if (withReadme) {
    const readme = { action: 'create' as const, filePath: 'README.md', content: Buffer.from(`# ${created.name}\n`) };
    await writeCommit(ctx, created, actor, { branch: created.default_branch, message: 'Initial commit', actions: [readme] });
  }
  return avatar ? setProjectAvatar(ctx.db, ctx.config.dataDir, created.id, avatar) : created;
}

function avatarOf(req: Request) {
  const avatar = req.files.find((file) => file.field === 'avatar');
  if (avatar) assertAvatar(avatar);
  return avatar;
}

/** SPEC: `user_id` is an id or a username. */
function userByIdOrUsername(ctx: SiteContext, raw: string) {
  if (/^\d{1,15}$/.test(raw)) return getUser(ctx.db, Number(raw));
  const user = findUserByUsername(ctx.db, raw);
  if (!user || user.ghost) throw notFound('User');
  return user;
}

function userNamespaceId(ctx: SiteContext, userId: number): number {
  const namespace = findUserNamespace(ctx.db, userId);
  if (!namespace) throw notFound('Namespace');
  return namespace.id;
}

/**
 * Serves project avatars at the path avatar_url names, for projects anyone may read (this route
 * sees no credentials). Geo does not replicate avatar files, so a secondary has the primary answer.
 */
export function projectAvatarRouter(ctx: SiteContext, reads: ReadRouting | null): Router {
  const router = Router();
  router.get('/uploads/-/system/project/avatar/:id/:file', async (req, res) => {
    const project = findProjectById(ctx.db, pathInt(req.params.id, 'id'));
    if (!project || project.visibility_level !== VISIBILITY.public || project.avatar_path !== req.params.file) throw notFound('Avatar');
    if (reads) return reads.fromPrimary(req, res);
    await sendStoredFile(req, res, path.join(projectAvatarDir(ctx.config.dataDir, project.id), project.avatar_path), { resource: 'Avatar', type: path.extname(project.avatar_path) });
  });
  return router;
}
