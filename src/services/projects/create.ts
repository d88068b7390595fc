import { setProjectTopics } from './topics.js';
import { randomBytes } from 'node:crypto';
import type { UploadedFile } from '../../storage/uploaded-file.js';
import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { findNamespaceById, findUserNamespace, type NamespaceRow } from '../../db/tables/namespaces.js';
import { countPersonalProjects, deleteProjectRow, findProjectById, insertProject, insertProjectMember, type ProjectColumns, type ProjectRow } from '../../db/tables/projects.js';
import { findUserById } from '../../db/tables/users.js';
import { AppError, forbidden, invalid, notFound } from '../../errors.js';
import { recordRepositoryChange } from '../../geo/repository-events.js';
import { createBareRepository, removeRepository } from '../../git/repositories.js';
import type { SiteContext } from '../../site-context.js';
import type { Actor } from '../users/authentication.js';
import { nowIso } from '../../storage/clock.js';
import { can, canReadNamespace, isAdmin } from '../permissions.js';
import { ACCESS, VISIBILITY, type VisibilityName } from '../../db/levels.js';
import { recordProjectCreated } from '../issuables/record-events.js';
import { writeCommit } from '../repository/commit-writer.js';
import { setProjectAvatar } from './avatar.js';
import { applicationSettings, restrictedVisibilityError, type ApplicationSettings } from '../administration/application-settings.js';
import { pathFromName, validateProject } from './validation.js';

/** The feature switches a create or update may set (SPEC: create parameters). */
export const PROJECT_FLAGS = [
  'issues_enabled',
  'merge_requests_enabled',
  'jobs_enabled',
  'wiki_enabled',
  'snippets_enabled',
  'container_registry_enabled',
  'shared_runners_enabled',
  'lfs_enabled',
  'request_access_enabled',
  'public_jobs',
  'only_allow_merge_if_pipeline_succeeds',
  'only_allow_merge_if_all_discussions_are_resolved',
  'resolve_outdated_diff_discussions',
  'printing_merge_request_link_enabled',
] as const;
export type ProjectFlag = (typeof PROJECT_FLAGS)[number];

/** Attributes of a create or update, as the API read them; absent means "leave as is" (or the default). */
export type ProjectInput = Partial<Record<ProjectFlag, boolean>> & {
  name?: string;
  path?: string;
  description?: string;
  default_branch?: string;
  visibility?: VisibilityName;
  /** GitLab 14+ `topics`; `tag_list` is its legacy name, used when `topics` is absent. */
  topics?: string[];
  tag_list?: string[];
  import_url?: string;
  ci_config_path?: string;
  repository_storage?: string;
  approvals_before_merge?: number;
};

/** The topics a create or update gives the project, if it gives any. */
export const topicsOfInput = (input: ProjectInput): string[] | undefined => input.topics ?? input.tag_list;

/** Row columns for the attributes that map one to one. */
export function columnsOfInput(input: ProjectInput): ProjectColumns {
  const columns: ProjectColumns = {};
  for (const key of ['name', 'path', 'description', 'default_branch', 'import_url', 'ci_config_path', 'repository_storage', 'approvals_before_merge'] as const) {
    if (input[key] !== undefined) (columns as Record<string, unknown>)[key] = input[key];
  }
  for (const key of PROJECT_FLAGS) if (input[key] !== undefined) columns[key] = input[key] ? 1 : 0;
  if (input.visibility !== undefined) columns.visibility_level = VISIBILITY[input.visibility];
  return columns;
}

/**
 * Where a new project goes: the given namespace, else the owner's own. A namespace the actor
 * cannot see is not found; a visible group where they may not create projects (maintainer and
 * above, GROUP_ABILITIES.create_projects) is forbidden.
 */
export function targetNamespace(db: Db, actor: Actor, ownerId: number, namespaceId: number | undefined): NamespaceRow {
  if (namespaceId === undefined) {
    const own = findUserNamespace(db, ownerId);
    if (!own) throw notFound('Namespace');
    return own;
  }
  const namespace = findNamespaceById(db, namespaceId);
  if (!namespace || !canReadNamespace(db, actor, namespace)) throw notFound('Namespace');
  if (namespace.kind === 'group' && !can(db, actor, 'create_projects', namespace)) throw forbidden();
  return namespace;
}

/** Who creates the project, for whom (the caller, or the user an admin creates it for), and where. */
export interface CreatedBy {
  actor: Actor;
  creatorId: number;
  namespace: NamespaceRow;
}

/** What a create brings besides the attributes (SPEC: POST /projects): an avatar (checked by assertAvatar), a first commit. */
export interface CreateExtras {
  avatar?: UploadedFile;
  /** GitLab's initialize_with_readme: a first commit with a README on the default branch. */
  initializeWithReadme?: boolean;
}

/**
 * Creates a project (SPEC: POST /projects). With an `import_url` it comes back `scheduled` and is
 * handed to the import worker (services/projects/import.ts) once its row committed; the worker
 * clones the URL. Otherwise its repository exists on return, with a README commit when asked for.
 */
export async function createProject(ctx: SiteContext, by: CreatedBy, input: ProjectInput, extras: CreateExtras = {}): Promise<ProjectRow> {
  const settings = applicationSettings(ctx.db, ctx.config);
  const created = await insertProjectAndRepository(ctx.db, ctx.config.dataDir, by, { ...input, visibility: input.visibility ?? settings.default_project_visibility }, settings);
  if (created.import_status === 'scheduled') ctx.imports.schedule(created.id);
  else if (extras.initializeWithReadme) {
    const readme = { action: 'create' as const, filePath: 'README.md', content: Buffer.from(`# ${created.name}\n`) };
    await writeCommit(ctx, created, by.actor, { branch: created.default_branch, message: 'Initial commit', actions: [readme] });
  }
  return extras.avatar ? setProjectAvatar(ctx.db, ctx.config.dataDir, created.id, extras.avatar) : created;
}

/**
 * The project's rows, then its bare repository (none for an import: the worker clones it). If git
 * fails the rows are removed again and the caller gets a validation error on `base`, as GitLab
 * reports a repository it could not create.
 */
async function insertProjectAndRepository(db: Db, dataDir: string, by: CreatedBy, input: ProjectInput, settings: ApplicationSettings): Promise<ProjectRow> {
  const { actor, namespace } = by;
  const name = input.name ?? input.path ?? '';
  const path = input.path ?? pathFromName(name);
  if (input.repository_storage !== undefined && !isAdmin(actor)) throw forbidden();
  const project = inTransaction(db, () => {
    if (namespace.kind === 'user' && namespace.owner_id !== null) assertBelowProjectsLimit(db, namespace.owner_id);
    const columns = { ...columnsOfInput(input), name, path };
    const errors = validateProject(db, {
      id: null,
      namespace,
      name,
      path,
      visibility_level: columns.visibility_level ?? VISIBILITY.private,
      default_branch: columns.default_branch ?? 'master',
      approvals_before_merge: columns.approvals_before_merge ?? 0,
      repository_storage: columns.repository_storage ?? 'default',
    });
    const restricted = restrictedVisibilityError(settings, isAdmin(actor), columns.visibility_level ?? VISIBILITY.private);
    if (restricted) (errors.visibility_level ??= []).push(restricted);
    const urlError = input.import_url ? importUrlError(input.import_url) : null;
    if (urlError) (errors.import_url ??= []).push(urlError);
    if (Object.keys(errors).length) throw invalid(errors);
    const project = insertProjectWithOwner(db, actor, namespace, {
      ...columns,
      creator_id: by.creatorId,
      import_status: input.import_url ? 'scheduled' : 'none',
    });
    const topics = topicsOfInput(input);
    if (topics) setProjectTopics(db, project.id, topics);
    return project;
  });
  if (project.import_status === 'scheduled') return project;
  try {
    await createBareRepository(dataDir, project.id, project.default_branch);
  } catch (error) {
    inTransaction(db, () => deleteProjectRow(db, project.id));
    // Safe to drop: whatever git left half-made is unreachable without the row, and the caller
    // needs the creation failure (carried as the cause), not a second one from the cleanup.
    await removeRepository(dataDir, project.id).catch(() => undefined);
    throw new AppError('invalid', { base: ['Failed to create repository'] }, { cause: error });
  }
  await recordRepositoryChange(db, dataDir, project.id, 'repository', 'created');
  return project;
}

/** Imports come from http and https URLs only: no local paths, file://, ssh or git's ext:: transports. */
function importUrlError(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is blocked: URI is invalid';
  }
  return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? null : 'is blocked: Only allowed protocols are http, https';
}

/** GitLab's text when a personal namespace is full (the owner's projects_limit), or null while there is room. */
export function projectsLimitReached(db: Db, ownerId: number): string | null {
  const owner = findUserById(db, ownerId);
  if (!owner) throw notFound('User');
  if (countPersonalProjects(db, ownerId) < owner.projects_limit) return null;
  return `Your project limit is ${owner.projects_limit} projects! Please contact your administrator to increase it`;
}

/** Personal projects count against the owner's projects_limit; reaching it is a 403 on create (GITLAB-NOTES 2.2). */
function assertBelowProjectsLimit(db: Db, ownerId: number): void {
  const reached = projectsLimitReached(db, ownerId);
  if (reached) throw forbidden(reached);
}

/**
 * Inserts a project row (create, fork) with its runners token and times, and in a user namespace
 * makes its owner a maintainer member; group projects get access through the group (GITLAB-NOTES 2.2).
 * Its creator's `created` event goes with it (the owner's membership writes no `joined`, as in GitLab).
 */
export function insertProjectWithOwner(
  db: Db,
  actor: Actor,
  namespace: NamespaceRow,
  columns: Omit<Parameters<typeof insertProject>[1], 'namespace_id' | 'runners_token' | 'last_activity_at' | 'created_at' | 'updated_at'>,
): ProjectRow {
  const now = nowIso();
  const id = insertProject(db, {
    ...columns,
    namespace_id: namespace.id,
    runners_token: randomBytes(15).toString('base64url'),
    last_activity_at: now,
    created_at: now,
    updated_at: now,
  });
  if (namespace.kind === 'user' && namespace.owner_id !== null) {
    insertProjectMember(db, { project_id: id, user_id: namespace.owner_id, access_level: ACCESS.maintainer, created_by_id: actor.user.id, now });
  }
  recordProjectCreated(db, columns.creator_id ?? actor.user.id, id, now);
  return findProjectById(db, id)!;
}
