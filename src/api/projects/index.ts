import { customAttributesRoutes, type AttributeSubject } from '../custom-attributes.js';
import { admin, loadProject, projectOf, requireAbility, signedIn } from '../middleware/guards.js';
import { avatarChange, avatarFile } from '../middleware/value-guards.js';
import { paged } from '../pagination.js';
import { fromCurrentCopy, type ReadRouting } from '../geo/read-routing.js';
import type { Route } from '../routes.js';
import { projectListParams } from './list-response.js';
import { addProject, addProjectForUser, projectCreateForUserParams, projectCreateParams, projectOwnerIdParam } from './create.js';
import { removeProject } from './delete.js';
import { listUsers, projectShowParams, projectUsersParams, showProject } from './details.js';
import { addFork, projectForkParams } from './fork.js';
import { listAllProjects, listForks, listUserProjects } from './lists.js';
import { addShare, removeShare, projectShareParams, sharedGroupId } from './share.js';
import { archiveProject, starProject, unarchiveProject, unstarProject } from './states.js';
import { addUpload, uploadFile } from './uploads.js';
import { editProject, projectUpdateParams } from './update.js';
import { listGroupsOfProject, projectGroupsParams, projectTransferParams, transferProjectHandler } from './transfer.js';
import { topicsRoutes } from './topics.js';
import { runHousekeeping, showLanguages, showStorage } from './housekeeping.js';
import { downloadSnapshot, snapshotParams } from './snapshot.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';

/**
 * Projects (SPEC: Projects; GITLAB-NOTES 2.2). Guards run in GitLab's order (GITLAB-NOTES 1.4):
 * signed in (401), a visible project (404), the ability (403). A route's parameters guard
 * (projectUpdateParams...) sits before its ability, as GitLab checks them (400) before it authorizes; a
 * numeric path id (pathId) right after sign-in, as Grape validates it before the endpoint finds
 * the project (projects.rb `user_project` and `authenticated_as_admin!` run in the endpoint).
 */
const project = loadProject();
const projectAttributes = { owner: { table: 'project_custom_attributes', column: 'project_id' }, ownerId: (_ctx, req) => projectOf(req).id } as const satisfies AttributeSubject;

/** The projects routes; `reads` has a secondary answer the languages from its copy of the repository only when it is current. */
export const projectsRoutes = (reads: ReadRouting | null): readonly Route[] => [
  { method: 'get', path: '/projects', guards: [projectListParams], handler: listAllProjects },
  { method: 'get', path: '/users/:user_id/projects', guards: [projectListParams], handler: listUserProjects },
  { method: 'get', path: '/projects/:id/forks', guards: [project, projectListParams], handler: listForks },
  { method: 'get', path: '/projects/:id', guards: [project, projectShowParams], handler: showProject },
  { method: 'get', path: '/projects/:id/users', guards: [project, projectUsersParams, paged], handler: listUsers },
  // project_snapshots.rb: authenticated_with_can_read_all_resources! (admins) before user_project.
  { method: 'get', path: '/projects/:id/snapshot', guards: [signedIn, admin, project, snapshotParams], handler: downloadSnapshot(reads) },
  { method: 'post', path: '/projects', guards: [signedIn, projectCreateParams, avatarFile], handler: addProject },
  { method: 'post', path: '/projects/user/:user_id', guards: [signedIn, projectOwnerIdParam, admin, projectCreateForUserParams, avatarFile], handler: addProjectForUser },
  { method: 'put', path: '/projects/:id', guards: [signedIn, project, avatarChange, projectUpdateParams, requireAbility('admin_project')], handler: editProject },
  { method: 'delete', path: '/projects/:id', guards: [signedIn, project, requireAbility('remove_project'), unmodifiedSince], handler: removeProject },
  { method: 'post', path: '/projects/:id/fork', guards: [signedIn, project, projectForkParams, requireAbility('fork_project')], handler: addFork },
  { method: 'post', path: '/projects/:id/star', guards: [signedIn, project], handler: starProject },
  { method: 'post', path: '/projects/:id/unstar', guards: [signedIn, project], handler: unstarProject },
  { method: 'post', path: '/projects/:id/archive', guards: [signedIn, project, requireAbility('archive_project')], handler: archiveProject },
  { method: 'post', path: '/projects/:id/unarchive', guards: [signedIn, project, requireAbility('archive_project')], handler: unarchiveProject },
  { method: 'post', path: '/projects/:id/share', guards: [signedIn, project, projectShareParams, requireAbility('admin_project')], handler: addShare },
  { method: 'delete', path: '/projects/:id/share/:group_id', guards: [signedIn, sharedGroupId, project, requireAbility('admin_project'), unmodifiedSince], handler: removeShare },
  { method: 'post', path: '/projects/:id/uploads', guards: [signedIn, uploadFile, project, requireAbility('upload_file')], handler: addUpload },
  { method: 'put', path: '/projects/:id/transfer', guards: [signedIn, project, requireAbility('change_namespace'), projectTransferParams], handler: transferProjectHandler },
  { method: 'get', path: '/projects/:id/groups', guards: [project, projectGroupsParams, paged], handler: listGroupsOfProject },
  { method: 'get', path: '/projects/:id/languages', guards: [project], handler: fromCurrentCopy(reads, 'repository', showLanguages) },
  { method: 'post', path: '/projects/:id/housekeeping', guards: [signedIn, project, requireAbility('run_housekeeping')], handler: runHousekeeping },
  { method: 'get', path: '/projects/:id/storage', guards: [admin, project], handler: showStorage },

  ...customAttributesRoutes('/projects/:id', [project], projectAttributes),
  ...topicsRoutes,
];

export { projectAvatarRouter } from './avatar.js';
export { projectUploadsWebRouter } from './uploads.js';
