import { eeRoute, loadGroup, loadProject, requireAbility, signedIn } from '../middleware/guards.js';
import { paged } from '../pagination.js';
import type { Route } from '../routes.js';
import { unmodifiedSince } from '../middleware/unmodified-since.js';
import { boardIdParam, listCreateParams, listIdParam, listMoveParams, boardCreateParams } from './board-guards.js';
import { boardHandlers } from './boards.js';
import { epicsRoutes } from './epics.js';

const project = boardHandlers('project');
const group = boardHandlers('group');

/** A project's boards: signed in (401; every board call needs it), path ids (400), a visible project (404), read_board (403). */
const projectReader = [signedIn, loadProject(), requireAbility('read_board')];
const projectBoard = [signedIn, boardIdParam, loadProject(), requireAbility('read_board'), project.board];
const projectList = [signedIn, boardIdParam, listIdParam, loadProject(), requireAbility('read_board'), project.board, project.list];
/** A group's boards (ee only): the same over a visible group (read_group). */
const groupReader = [eeRoute, signedIn, loadGroup()];
const groupBoard = [eeRoute, signedIn, boardIdParam, loadGroup(), group.board];
const groupList = [eeRoute, signedIn, boardIdParam, listIdParam, loadGroup(), group.board, group.list];

/**
 * Issue boards and their lists (issue 16, items 1-3; SPEC: Issue boards; GITLAB-NOTES 2.4). Creating
 * and deleting boards, and group boards, are ee routes: the ce edition answers them as unknown
 * routes. A new list's label is checked (400 `Label not found!`) before the ability, as GitLab does.
 * Epics and epic issues (items 4-5) follow, from epics.ts.
 */
export const planningRoutes: readonly Route[] = [
  { method: 'get', path: '/projects/:id/boards', guards: [...projectReader, paged], handler: project.listBoards },
  { method: 'post', path: '/projects/:id/boards', guards: [eeRoute, signedIn, boardCreateParams, loadProject(), requireAbility('admin_board')], handler: project.addBoard },
  { method: 'get', path: '/projects/:id/boards/:board_id', guards: projectBoard, handler: project.showBoard },
  { method: 'delete', path: '/projects/:id/boards/:board_id', guards: [eeRoute, ...projectBoard, requireAbility('admin_board')], handler: project.removeBoard },
  { method: 'get', path: '/projects/:id/boards/:board_id/lists', guards: [...projectBoard, paged], handler: project.listLists },
  { method: 'post', path: '/projects/:id/boards/:board_id/lists', guards: [signedIn, boardIdParam, listCreateParams, loadProject(), requireAbility('read_board'), project.board, project.label, requireAbility('admin_list')], handler: project.addList },
  { method: 'get', path: '/projects/:id/boards/:board_id/lists/:list_id', guards: projectList, handler: project.showList },
  { method: 'put', path: '/projects/:id/boards/:board_id/lists/:list_id', guards: [signedIn, boardIdParam, listIdParam, listMoveParams, loadProject(), requireAbility('read_board'), project.board, project.list, requireAbility('admin_list')], handler: project.moveList },
  { method: 'delete', path: '/projects/:id/boards/:board_id/lists/:list_id', guards: [...projectList, requireAbility('destroy_list'), unmodifiedSince], handler: project.removeList },
  { method: 'get', path: '/projects/:id/boards/:board_id/lists/:list_id/issues', guards: [...projectList, paged], handler: project.listListIssues },

  { method: 'get', path: '/groups/:id/boards', guards: [...groupReader, paged], handler: group.listBoards },
  { method: 'post', path: '/groups/:id/boards', guards: [eeRoute, signedIn, boardCreateParams, loadGroup(), requireAbility('admin_group_board')], handler: group.addBoard },
  { method: 'get', path: '/groups/:id/boards/:board_id', guards: groupBoard, handler: group.showBoard },
  { method: 'delete', path: '/groups/:id/boards/:board_id', guards: [...groupBoard, requireAbility('admin_group_board')], handler: group.removeBoard },
  { method: 'get', path: '/groups/:id/boards/:board_id/lists', guards: [...groupBoard, paged], handler: group.listLists },
  { method: 'post', path: '/groups/:id/boards/:board_id/lists', guards: [eeRoute, signedIn, boardIdParam, listCreateParams, loadGroup(), group.board, group.label, requireAbility('admin_group_list')], handler: group.addList },
  { method: 'get', path: '/groups/:id/boards/:board_id/lists/:list_id', guards: groupList, handler: group.showList },
  { method: 'put', path: '/groups/:id/boards/:board_id/lists/:list_id', guards: [eeRoute, signedIn, boardIdParam, listIdParam, listMoveParams, loadGroup(), group.board, group.list, requireAbility('admin_group_list')], handler: group.moveList },
  { method: 'delete', path: '/groups/:id/boards/:board_id/lists/:list_id', guards: [...groupList, requireAbility('destroy_group_list'), unmodifiedSince], handler: group.removeList },
  { method: 'get', path: '/groups/:id/boards/:board_id/lists/:list_id/issues', guards: [...groupList, paged], handler: group.listListIssues },

  ...epicsRoutes,
];
