import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { findNamespaceById, findNamespaceByPath, findUserNamespace, type NamespaceRow } from '../../db/tables/namespaces.js';
import { findProjectById, type ProjectRow } from '../../db/tables/projects.js';
import { AppError, notFound, type FieldErrors } from '../../errors.js';
import { repositoryPath } from '../../storage/layout.js';
import type { SiteContext } from '../../site-context.js';
import type { Actor } from '../users/authentication.js';
import { canCreateProjectsIn } from '../permissions.js';
import { insertProjectWithOwner, PROJECT_FLAGS, projectsLimitReached } from './create.js';
import { validateProject } from './validation.js';
import type { Ref } from '../find-visible.js';

/**
 * Where a fork goes (GITLAB-NOTES 2.2 Fork): the namespace given by id or full path, else the
 * caller's own. One that is missing, or where the caller may not create projects, is 404
 * `Target Namespace` either way, so a private group's existence is not revealed.
 */
export function forkTargetNamespace(db: Db, actor: Actor, ref: Ref | undefined): NamespaceRow {
  const namespace = ref === undefined ? findUserNamespace(db, actor.user.id) : 'id' in ref ? findNamespaceById(db, ref.id) : findNamespaceByPath(db, ref.path);
  if (!namespace || !canCreateProjectsIn(db, actor, namespace)) throw notFound('Target Namespace');
  return namespace;
}

/**
 * Forks a project the actor may fork (SPEC: POST /projects/:id/fork): a new row in the target
 * namespace with the source's name, path, description, default branch, storage and feature
 * switches, its visibility capped by a group target's, created by the caller and linked by
 * forked_from_project_id. In a user namespace its owner becomes a maintainer member, as for any
 * create. The fork's repository does not exist yet: the row comes back `scheduled`, and once it
 * committed the import worker is given it to clone the source (services/projects/import.ts). A
 * name or path already taken, or a full personal namespace, is a 409 carrying the errors hash.
 */
export function forkProject(ctx: SiteContext, actor: Actor, source: ProjectRow, target: Ref | undefined): ProjectRow {
  const fork = insertFork(ctx.db, actor, source, forkTargetNamespace(ctx.db, actor, target));
  ctx.imports.schedule(fork.id);
  return fork;
}

function insertFork(db: Db, actor: Actor, source: ProjectRow, namespace: NamespaceRow): ProjectRow {
  return inTransaction(db, () => {
    const visibility = namespace.kind === 'group' ? Math.min(source.visibility_level, namespace.visibility_level) : source.visibility_level;
    const errors: FieldErrors = validateProject(db, {
      id: null,
      namespace,
      name: source.name,
      path: source.path,
      visibility_level: visibility,
      default_branch: source.default_branch,
      approvals_before_merge: source.approvals_before_merge,
      repository_storage: source.repository_storage,
    });
    const limit = namespace.kind === 'user' && namespace.owner_id !== null ? projectsLimitReached(db, namespace.owner_id) : null;
    if (limit) errors.limit_reached = [limit];
    if (Object.keys(errors).length) throw new AppError('conflict', errors);
    const flags = Object.fromEntries(PROJECT_FLAGS.map((flag) => [flag, source[flag]]));
    return insertProjectWithOwner(db, actor, namespace, {
      ...flags,
      name: source.name,
      path: source.path,
      description: source.description,
      visibility_level: visibility,
      default_branch: source.default_branch,
      ci_config_path: source.ci_config_path,
      repository_storage: source.repository_storage,
      approvals_before_merge: source.approvals_before_merge,
      creator_id: actor.user.id,
      forked_from_project_id: source.id,
      import_status: 'scheduled',
    });
  });
}

/**
 * What a fork's repository is cloned from: the source project's bare repository, named by the
 * source's full path for error texts; null when the source was deleted before the fork's clone
 * ran (its link is then gone too).
 */
export function forkCloneSource(db: Db, dataDir: string, fork: ProjectRow): { path: string; label: string } | null {
  const source = fork.forked_from_project_id === null ? undefined : findProjectById(db, fork.forked_from_project_id);
  if (!source) return null;
  return { path: repositoryPath(dataDir, source.id), label: projectFullPath(db, source) };
}

/** `namespace/path` of a project, for texts that must not show where repositories live on disk. */
export function projectFullPath(db: Db, project: ProjectRow): string {
  return `${findNamespaceById(db, project.namespace_id)?.full_path ?? '?'}/${project.path}`;
}
