import { loadProject, requireAbility, signedIn } from '../middleware/guards.js';
import type { Route } from '../routes.js';
import { addHook, editHook, listHooks, removeHook, showHook } from './project-hooks.js';

/** Project hooks (SPEC: Projects; GITLAB-NOTES 2.2): signed in (401), a visible project (404), admin_project on it (403). */
const maintainer = [signedIn, loadProject(), requireAbility('admin_project')];

export const hooksRoutes: readonly Route[] = [
  { method: 'get', path: '/projects/:id/hooks', guards: maintainer, handler: listHooks },
  { method: 'get', path: '/projects/:id/hooks/:hook_id', guards: maintainer, handler: showHook },
  { method: 'post', path: '/projects/:id/hooks', guards: maintainer, handler: addHook },
  { method: 'put', path: '/projects/:id/hooks/:hook_id', guards: maintainer, handler: editHook },
  { method: 'delete', path: '/projects/:id/hooks/:hook_id', guards: maintainer, handler: removeHook },
];
