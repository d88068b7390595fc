import { loadProject, signedIn, unauthorizedUnless } from '../middleware/guards.js';
import { paged } from '../pagination.js';
import type { Route } from '../routes.js';
import { addMirror, editMirror, listMirrors, mirrorCreateParams, mirrorIdParam, mirrorUpdateParams, removeMirror, showMirror, syncMirror } from './mirrors.js';

/**
 * Push mirrors (GitLab 17's remote_mirrors.rb): signed in (401), a visible project (404), then
 * `unauthorized! unless can?(current_user, :admin_remote_mirror, user_project)` in its `before`
 * block: 401, not 403, to members below maintainer; parameters are read after it.
 */
const mirrorAdmin = [signedIn, loadProject(), unauthorizedUnless('admin_remote_mirror')];
const base = '/projects/:id/remote_mirrors';

export const remoteMirrorsRoutes: readonly Route[] = [
  { method: 'get', path: base, guards: [...mirrorAdmin, paged], handler: listMirrors },
  { method: 'post', path: base, guards: [...mirrorAdmin, mirrorCreateParams], handler: addMirror },
  { method: 'get', path: `${base}/:mirror_id`, guards: [...mirrorAdmin, mirrorIdParam], handler: showMirror },
  { method: 'put', path: `${base}/:mirror_id`, guards: [...mirrorAdmin, mirrorIdParam, mirrorUpdateParams], handler: editMirror },
  { method: 'delete', path: `${base}/:mirror_id`, guards: [...mirrorAdmin, mirrorIdParam], handler: removeMirror },
  { method: 'post', path: `${base}/:mirror_id/sync`, guards: [...mirrorAdmin, mirrorIdParam], handler: syncMirror },
];
