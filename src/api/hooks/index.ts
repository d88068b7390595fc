import { eeRoute, loadGroup, loadProject, requireAbility, signedIn } from '../middleware/guards.js';
import { paged } from '../pagination.js';
import type { Route } from '../routes.js';
import { addGroupHook, editGroupHook, listGroupHooksOfGroup, removeGroupHook, showGroupHook } from './group-hooks.js';
import { addHook, editHook, hookParams, listHooks, removeHook, showHook } from './project-hooks.js';

/** Project hooks (SPEC: Projects; GITLAB-NOTES 2.2): signed in (401), a visible project (404), admin_project on it (403). */
const maintainer = [signedIn, loadProject(), requireAbility('admin_project')];
/** Group hooks (ee; ce answers as for an unknown route): signed in (401), a visible group (404), admin_group, its owners (403). */
const groupOwner = [eeRoute, signedIn, loadGroup(), requireAbility('admin_group')];

export const hooksRoutes: readonly Route[] = [
  { method: 'get', path: '/projects/:id/hooks', guards: [...maintainer, paged], handler: listHooks },
  { method: 'get', path: '/projects/:id/hooks/:hook_id', guards: maintainer, handler: showHook },
  { method: 'post', path: '/projects/:id/hooks', guards: [...maintainer, hookParams], handler: addHook },
  { method: 'put', path: '/projects/:id/hooks/:hook_id', guards: [...maintainer, hookParams], handler: editHook },
  { method: 'delete', path: '/projects/:id/hooks/:hook_id', guards: maintainer, handler: removeHook },

  { method: 'get', path: '/groups/:id/hooks', guards: [...groupOwner, paged], handler: listGroupHooksOfGroup },
  { method: 'get', path: '/groups/:id/hooks/:hook_id', guards: groupOwner, handler: showGroupHook },
  { method: 'post', path: '/groups/:id/hooks', guards: [...groupOwner, hookParams], handler: addGroupHook },
  { method: 'put', path: '/groups/:id/hooks/:hook_id', guards: [...groupOwner, hookParams], handler: editGroupHook },
  { method: 'delete', path: '/groups/:id/hooks/:hook_id', guards: groupOwner, handler: removeGroupHook },
];
