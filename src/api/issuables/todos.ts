import type { Request, Response } from 'express';
import type { Page, Paged } from '../../db/page.js';
import { TODO_ACTIONS, TODO_TARGET_TYPES, type TodoFilter, type TodoRow } from '../../db/tables/todos.js';
import { todoView } from '../../entities/todos.js';
import { loadTodoRelations } from '../../services/issuables/todo-relations.js';
import { listTodos, markAllTodosAsDone, markIssueTodo, markTodoAsDone } from '../../services/issuables/todos.js';
import type { SiteContext } from '../../site-context.js';
import { loadProject, projectOf, requireAbility, requireActor, signedIn } from '../middleware/guards.js';
import { paramsGuard, pathId } from '../middleware/value-guards.js';
import { paged, sendPage } from '../pagination.js';
import { int, oneOf } from '../params.js';
import { sendJson, sendNoContent } from '../respond.js';
import type { Route } from '../routes.js';
import { issueIid, readableIssue } from './issue-guards.js';

/**
 * Todos (GitLab's todos API; python-gitlab's gl.todos and issue.todo()): every route needs a
 * signed-in caller (401 first, GitLab's `before { authenticate! }`), then the filters (400).
 */

const todoFilters = paramsGuard(
  'todoFilters',
  {
    action: oneOf(TODO_ACTIONS),
    author_id: int(),
    project_id: int(),
    group_id: int(),
    state: oneOf(['pending', 'done'] as const),
    type: oneOf(TODO_TARGET_TYPES),
  },
  (params): TodoFilter => ({ action: params.action, authorId: params.author_id, projectId: params.project_id, groupId: params.group_id, state: params.state, type: params.type }),
);

const todoId = pathId('id');

export const todosRoutes: readonly Route[] = [
  { method: 'get', path: '/todos', guards: [signedIn, todoFilters, paged], handler: listOwnTodos },
  { method: 'post', path: '/todos/mark_as_done', guards: [signedIn], handler: markAllDone },
  { method: 'post', path: '/todos/:id/mark_as_done', guards: [signedIn, todoId], handler: markOneDone },
  { method: 'post', path: '/projects/:id/issues/:issue_iid/todo', guards: [signedIn, issueIid, loadProject(), requireAbility('read_issue'), readableIssue], handler: markIssue },
];

function listOwnTodos(ctx: SiteContext, req: Request, res: Response): void {
  const page = paged.of(req);
  sendTodoPage(ctx, req, res, page, listTodos(ctx.db, requireActor(req), todoFilters.of(req), page));
}

function markOneDone(ctx: SiteContext, req: Request, res: Response): void {
  sendTodo(ctx, req, res, 201, markTodoAsDone(ctx.db, requireActor(req), todoId.of(req)));
}

function markAllDone(ctx: SiteContext, req: Request, res: Response): void {
  markAllTodosAsDone(ctx.db, requireActor(req));
  sendNoContent(res);
}

/** POST .../issues/:issue_iid/todo: 201 with the new todo, 304 when the caller has a pending one about the issue. */
function markIssue(ctx: SiteContext, req: Request, res: Response): void {
  const loaded = readableIssue.of(req);
  sendTodo(ctx, req, res, 201, markIssueTodo(ctx.db, requireActor(req), projectOf(req), loaded.issue, loaded.assigneeIds));
}

function sendTodo(ctx: SiteContext, req: Request, res: Response, status: number, todo: TodoRow): void {
  sendJson(res, status, todoView(todo, loadTodoRelations(ctx.db, ctx.config.edition, requireActor(req), [todo]), ctx));
}

function sendTodoPage(ctx: SiteContext, req: Request, res: Response, page: Page, result: Paged<TodoRow>): void {
  const rel = loadTodoRelations(ctx.db, ctx.config.edition, requireActor(req), result.rows);
  sendPage(req, res, ctx.externalUrl, page, result.rows.map((row) => todoView(row, rel, ctx)), result.total);
}
