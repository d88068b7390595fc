import type { HookOwner } from '../../db/tables/hooks.js';
import { admin, eeRoute, loadGroup, loadProject, requireAbility, signedIn } from '../middleware/guards.js';
import { paged } from '../pagination.js';
import type { Guard, Route } from '../routes.js';
import { hookHandlers, hookIdParam, hookParams } from './hooks.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { addHook, editHook, listHooks, removeHook, showHook, systemHookCreateParams, systemHookUpdateParams, testHook } from './system-hooks.js';

/** Project hooks (SPEC: Projects; GITLAB-NOTES 2.2): signed in (401), a visible project (404), admin_project on it (403). */
const maintainer = [signedIn, loadProject(), requireAbility('admin_project')];
/** Group hooks (ee; ce answers as for an unknown route): signed in (401), a visible group (404), admin_group, its owners (403). */
const groupOwner = [eeRoute, signedIn, loadGroup(), requireAbility('admin_group')];

/**
 * The five hook routes of one owner under `base` (`/projects/:id/hooks` or `/groups/:id/hooks`), each
 * behind `guards`; `:hook_id` is read after them, as GitLab authorizes in a `before` block
 * (project_hooks.rb `before { authorize_admin_project }`) and validates `hook_id` after it.
 */
function hookRoutes(owner: HookOwner, base: string, guards: readonly Guard[]): Route[] {
  const handlers = hookHandlers(owner);
  return [
    { method: 'get', path: base, guards: [...guards, paged], handler: handlers.list },
    { method: 'get', path: `${base}/:hook_id`, guards: [...guards, hookIdParam], handler: handlers.show },
    { method: 'post', path: base, guards: [...guards, hookParams], handler: handlers.add },
    { method: 'put', path: `${base}/:hook_id`, guards: [...guards, hookIdParam, hookParams], handler: handlers.edit },
    { method: 'delete', path: `${base}/:hook_id`, guards: [...guards, hookIdParam, unmodifiedSince], handler: handlers.remove },
  ];
}

/** System hooks (system_hooks.rb): administrators only (401 signed out, 403 otherwise); `:hook_id` is read after the guard. */
const systemHookRoutes: Route[] = [
  { method: 'get', path: '/hooks', guards: [admin, paged], handler: listHooks },
  { method: 'get', path: '/hooks/:hook_id', guards: [admin, hookIdParam], handler: showHook },
  { method: 'post', path: '/hooks', guards: [admin, systemHookCreateParams], handler: addHook },
  { method: 'put', path: '/hooks/:hook_id', guards: [admin, hookIdParam, systemHookUpdateParams], handler: editHook },
  { method: 'post', path: '/hooks/:hook_id', guards: [admin, hookIdParam], handler: testHook },
  { method: 'delete', path: '/hooks/:hook_id', guards: [admin, hookIdParam, unmodifiedSince], handler: removeHook },
];

export const hooksRoutes: readonly Route[] = [
  ...hookRoutes('project', '/projects/:id/hooks', maintainer),
  ...hookRoutes('group', '/groups/:id/hooks', groupOwner),
  ...systemHookRoutes,
];
