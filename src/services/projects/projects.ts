import { setProjectTopics } from './topics.js';
import { dropEpicIssuesOutside } from '../planning/epic-issues.js';
import { restrictedVisibilityError, type ApplicationSettings } from '../administration/application-settings.js';
import { rm } from 'node:fs/promises';
import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { selectPage, type Page, type Paged } from '../../db/page.js';
import { PROJECT_TEAM_USER_IDS } from '../../db/tables/access.js';
import { isGroupOrAncestor, shareWithGroupLocked } from '../../db/tables/groups.js';
import { findNamespaceById, type NamespaceRow } from '../../db/tables/namespaces.js';
import {
  deleteGroupLink,
  deleteProjectRow,
  findGroupLink,
  findProjectById,
  hasStarred,
  insertGroupLink,
  setStar,
  takenInNamespace,
  updateProjectRow,
  type ProjectColumns,
  type ProjectGroupLinkRow,
  type ProjectRow,
} from '../../db/tables/projects.js';
import type { UserRow } from '../../db/tables/users.js';
import { AppError, badRequest, conflict, forbidden, invalid, notFound } from '../../errors.js';
import { recordProjectDeleted, recordProjectRenamed, recordRepositoryChange } from '../../geo/repository-events.js';
import { recordProjectSnippetsDeleted } from '../../geo/snippet-repository-events.js';
import { hasRepository } from '../../git/in-repository.js';
import { removeRepository, removeSnippetRepositories, setRepositoryHead } from '../../git/repositories.js';
import type { Actor } from '../users/authentication.js';
import type { BlobStores } from '../../storage/blob-stores.js';
import { projectArtifactsKey, projectAvatarDir, projectUploadsKey, repositoryPath } from '../../storage/layout.js';
import type { UploadedFile } from '../../storage/uploaded-file.js';
import { nowIso, today } from '../../storage/clock.js';
import { can, canCreateProjectsIn, isAdmin } from '../permissions.js';
import { assertUnmodifiedSince } from '../unmodified-since.js';
import { VISIBILITY } from '../../db/levels.js';
import { recordProjectDestroyed } from '../issuables/record-events.js';
import { clearProjectAvatar, setProjectAvatar } from './avatar.js';
import { columnsOfInput, topicsOfInput, type ProjectInput } from './create.js';
import { shadowsSubgroup, validateProject } from './validation.js';
import { findVisibleGroup } from '../find-visible.js';
import { removeProjectIssuables } from '../issuables/issue-removal.js';
import { removeDeployKeysOfProject } from '../deploy-keys/deploy-keys.js';

export { listProjects, type ProjectFilters } from './lists.js';

/**
 * Updates a project (SPEC: PUT /projects/:id) for an actor allowed admin_project: a new name or
 * visibility needs an owner as well (GITLAB-NOTES 2.2), so those are asked here, of the input. A
 * new default branch moves the repository's HEAD after the commit; a new avatar is stored last.
 */
export async function updateProject(db: Db, dataDir: string, actor: Actor, project: ProjectRow, input: ProjectInput, settings: ApplicationSettings, avatar?: UploadedFile | null): Promise<ProjectRow> {
  if (input.name !== undefined && input.name !== project.name && !can(db, actor, 'rename_project', project)) throw forbidden();
  if (input.visibility !== undefined && VISIBILITY[input.visibility] !== project.visibility_level && !can(db, actor, 'change_visibility_level', project)) throw forbidden();
  if (input.repository_storage !== undefined && !isAdmin(actor)) throw forbidden();
  const updated = inTransaction(db, () => {
    const current = findProjectById(db, project.id);
    if (!current) throw notFound('Project');
    const columns: ProjectColumns = { ...columnsOfInput(input), updated_at: nowIso() };
    const next: ProjectRow = { ...current, ...columns };
    const errors = validateProject(db, {
      id: current.id,
      namespace: findNamespaceById(db, current.namespace_id)!,
      name: next.name,
      path: next.path,
      visibility_level: next.visibility_level,
      default_branch: next.default_branch,
      approvals_before_merge: next.approvals_before_merge,
      repository_storage: next.repository_storage,
    });
    const restricted = next.visibility_level === current.visibility_level ? null : restrictedVisibilityError(settings, isAdmin(actor), next.visibility_level);
    if (restricted) (errors.visibility_level ??= []).push(restricted);
    if (Object.keys(errors).length) throw invalid(errors);
    updateProjectRow(db, current.id, columns);
    const topics = topicsOfInput(input);
    if (topics) setProjectTopics(db, current.id, topics);
    if (next.name !== current.name || next.path !== current.path) recordProjectRenamed(db, current.id);
    return next;
  });
  if (updated.default_branch !== project.default_branch) {
    const repository = repositoryPath(dataDir, project.id);
    // A repository not on disk yet takes the branch from the row when it is created.
    if (await hasRepository(repository)) {
      await setRepositoryHead(repository, updated.default_branch);
      await recordRepositoryChange(db, dataDir, project.id, 'repository', 'updated');
    }
  }
  if (avatar === null) return clearProjectAvatar(db, dataDir, updated.id);
  return avatar ? setProjectAvatar(db, dataDir, updated.id, avatar) : updated;
}

/**
 * Deletes a project: its rows (members, shares, stars, custom attributes and its events follow
 * through foreign keys; forks keep existing, unlinked; deploy keys no other project uses go), then its repository, wiki, avatar and
 * uploads directories; `actor`'s `destroyed` event names it. The groups family calls this for
 * each project of a group it deletes.
 */
export async function deleteProject(db: Db, dataDir: string, blobs: BlobStores, actor: Actor, project: ProjectRow): Promise<void> {
  const snippetIds = inTransaction(db, () => {
    const fullPath = `${findNamespaceById(db, project.namespace_id)?.full_path ?? ''}/${project.path}`;
    // Its snippets go with it (foreign key); their repositories' deleted events first.
    const snippets = recordProjectSnippetsDeleted(db, project.id);
    removeProjectIssuables(db, project.id);
    removeDeployKeysOfProject(db, project.id);
    deleteProjectRow(db, project.id);
    recordProjectDeleted(db, project.id);
    recordProjectDestroyed(db, actor.user.id, { id: project.id, fullPath });
    return snippets;
  });
  await removeRepository(dataDir, project.id);
  await removeSnippetRepositories(dataDir, snippetIds);
  await rm(projectAvatarDir(dataDir, project.id), { recursive: true, force: true });
  await blobs.removeFolder(projectUploadsKey(project.id));
  await blobs.removeFolder(projectArtifactsKey(project.id));
}

/** Stars (or unstars) the project for the actor; 304 when that is already so (SPEC: States). */
export function setProjectStar(db: Db, actor: Actor, project: ProjectRow, starred: boolean): ProjectRow {
  return inTransaction(db, () => {
    if (hasStarred(db, actor.user.id, project.id) === starred) throw new AppError('not_modified');
    setStar(db, actor.user.id, project.id, starred, nowIso());
    return findProjectById(db, project.id)!;
  });
}

/** Archives or unarchives, idempotent (SPEC: States). */
export function setProjectArchived(db: Db, project: ProjectRow, archived: boolean): ProjectRow {
  return inTransaction(db, () => {
    const current = findProjectById(db, project.id);
    if (!current) throw notFound('Project');
    if (current.archived === (archived ? 1 : 0)) return current;
    const columns = { archived: archived ? 1 : 0, updated_at: nowIso() };
    updateProjectRow(db, current.id, columns);
    return { ...current, ...columns };
  });
}

export interface ShareInput {
  groupId: number;
  groupAccess: number;
  expiresAt?: string;
}

/**
 * Shares the project with a group (SPEC: POST /projects/:id/share, GITLAB-NOTES 2.2): the
 * group's members get at most `groupAccess` on it. 404 `Group` when the group is not visible,
 * 400 when the project's group locks sharing, 409 when already shared.
 */
export function shareProject(db: Db, actor: Actor, project: ProjectRow, share: ShareInput): ProjectGroupLinkRow {
  return inTransaction(db, () => {
    const group = findVisibleGroup(db, actor, { id: share.groupId });
    if (shareWithGroupLocked(db, project.namespace_id)) throw badRequest('The project sharing with group is disabled');
    if (isGroupOrAncestor(db, project.namespace_id, group.id)) throw conflict('Project cannot be shared with the group it is in or one of its ancestors.');
    if (findGroupLink(db, project.id, group.id)) throw conflict('Group already shared with this group');
    const now = nowIso();
    return insertGroupLink(db, {
      project_id: project.id,
      group_id: group.id,
      group_access: share.groupAccess,
      expires_at: share.expiresAt ?? null,
      created_at: now,
      updated_at: now,
    });
  });
}

/** Stops sharing the project with a group; 404 `Group Link` when it was not shared. */
export function unshareProject(db: Db, project: ProjectRow, groupId: number, unmodifiedSince: number | null): void {
  inTransaction(db, () => {
    const link = findGroupLink(db, project.id, groupId);
    if (!link) throw notFound('Group Link');
    assertUnmodifiedSince(unmodifiedSince, link.updated_at);
    deleteGroupLink(db, link.id);
  });
}

/**
 * Moves a project into another namespace, a group (SPEC: POST /groups/:id/projects/:project_id,
 * admin only) or a user's (PUT /projects/:id/transfer, through transferProjectAs). The repository
 * and the wiki stay where they are: their paths derive from the project id (hashed storage), so
 * only rows change, and the Geo rename event tells secondaries. A project more open than a group
 * is narrowed to the group's visibility, as GitLab's transfer does. Errors are GitLab's 400
 * `Failed to transfer project {:new_namespace=>[...]}`.
 */
export function transferProject(db: Db, project: ProjectRow, namespace: NamespaceRow): ProjectRow {
  return inTransaction(db, () => {
    if (project.namespace_id === namespace.id) throw transferFailed('Project is already in this namespace.');
    const taken = takenInNamespace(db, namespace.id, project.name, project.path, project.id);
    if (taken.name || taken.path || shadowsSubgroup(db, namespace, project.path)) throw transferFailed('Project with same name or path in target namespace already exists');
    const visibility = namespace.kind === 'group' ? Math.min(project.visibility_level, namespace.visibility_level) : project.visibility_level;
    const columns = { namespace_id: namespace.id, visibility_level: visibility, updated_at: nowIso() };
    updateProjectRow(db, project.id, columns);
    recordProjectRenamed(db, project.id);
    dropEpicIssuesOutside(db, project.id, namespace.id);
    return { ...project, ...columns };
  });
}

const transferFailed = (text: string) => badRequest(`Failed to transfer project {:new_namespace=>["${text}"]}`);

/**
 * PUT /projects/:id/transfer (GitLab's Projects::TransferService): the route checked
 * change_namespace; the actor must also be allowed to create projects in the target namespace.
 */
export function transferProjectAs(db: Db, actor: Actor, project: ProjectRow, namespace: NamespaceRow): ProjectRow {
  if (project.namespace_id !== namespace.id && !canCreateProjectsIn(db, actor, namespace)) throw transferFailed('Transfer failed, please contact an admin.');
  return transferProject(db, project, namespace);
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/** The project's team: direct members and those who get access through its group or shares (SPEC: GET /projects/:id/users). */
export function listProjectUsers(db: Db, project: ProjectRow, search: string | undefined, page: Page): Paged<UserRow> {
  const params: Record<string, unknown> = { project: project.id, namespace: project.namespace_id, today: today() };
  let fromWhere = `FROM users WHERE users.id IN (${PROJECT_TEAM_USER_IDS}) AND users.ghost = 0`;
  if (search) {
    fromWhere += " AND (users.name LIKE @search ESCAPE '\\' OR users.username LIKE @search ESCAPE '\\')";
    params.search = `%${escapeLike(search)}%`;
  }
  return selectPage<UserRow>(db, 'users.*', fromWhere, 'users.id ASC', [params], page);
}
