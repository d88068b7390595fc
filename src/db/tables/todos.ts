import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

export type TodoTargetType = 'Issue' | 'MergeRequest' | 'Epic' | 'Commit';
export const TODO_TARGET_TYPES: readonly TodoTargetType[] = ['Issue', 'MergeRequest', 'Epic', 'Commit'];
export const TODO_ACTIONS = ['assigned', 'mentioned', 'build_failed', 'marked', 'approval_required', 'unmergeable', 'directly_addressed', 'review_requested'] as const;
export type TodoAction = (typeof TODO_ACTIONS)[number];
export type TodoState = 'pending' | 'done';

export interface TodoRow {
  id: number;
  user_id: number;
  author_id: number;
  project_id: number | null;
  group_id: number | null;
  target_type: TodoTargetType;
  target_id: number | null;
  commit_id: string | null;
  action: TodoAction;
  state: TodoState;
  note_id: number | null;
  body: string;
  created_at: string;
  updated_at: string;
}

export type NewTodo = Pick<TodoRow, 'user_id' | 'author_id' | 'project_id' | 'target_type' | 'target_id' | 'action' | 'note_id' | 'body' | 'created_at'>;

export function insertTodo(db: Db, todo: NewTodo): number {
  return Number(
    prepare(
      db,
      `INSERT INTO todos (user_id, author_id, project_id, target_type, target_id, action, note_id, body, created_at, updated_at)
       VALUES (@user_id, @author_id, @project_id, @target_type, @target_id, @action, @note_id, @body, @created_at, @created_at)`,
    ).run(todo).lastInsertRowid,
  );
}

export function findTodoOfUser(db: Db, userId: number, id: number): TodoRow | undefined {
  return prepare(db, 'SELECT * FROM todos WHERE id = ? AND user_id = ?').get(id, userId) as TodoRow | undefined;
}

/** Whether the user has a pending todo about the target, whatever its action (index todos_target). */
export function hasPendingTodo(db: Db, userId: number, type: TodoTargetType, targetId: number): boolean {
  return prepare(db, "SELECT 1 FROM todos WHERE target_type = ? AND target_id = ? AND user_id = ? AND state = 'pending'").get(type, targetId, userId) !== undefined;
}

/** Marks the user's pending todos about the target done (index todos_target). */
export function markTargetTodosDone(db: Db, userId: number, type: TodoTargetType, targetId: number, now: string): void {
  prepare(db, "UPDATE todos SET state = 'done', updated_at = ? WHERE target_type = ? AND target_id = ? AND user_id = ? AND state = 'pending'").run(now, type, targetId, userId);
}

export function markTodoDone(db: Db, id: number, now: string): void {
  prepare(db, "UPDATE todos SET state = 'done', updated_at = ? WHERE id = ? AND state = 'pending'").run(now, id);
}

/** Marks every pending todo of the user done (index todos_user_state). */
export function markAllTodosDone(db: Db, userId: number, now: string): void {
  prepare(db, "UPDATE todos SET state = 'done', updated_at = ? WHERE user_id = ? AND state = 'pending'").run(now, userId);
}

export interface TodoFilter {
  readonly state?: TodoState;
  readonly action?: TodoAction;
  readonly authorId?: number;
  readonly projectId?: number;
  readonly groupId?: number;
  readonly type?: TodoTargetType;
}

/** One user's todos, newest first, paged (index todos_user_state: user, state, id). */
export function selectTodos(db: Db, userId: number, filter: TodoFilter, page: Page): Paged<TodoRow> {
  const where = ['user_id = ?'];
  const params: unknown[] = [userId];
  const add = (sql: string, value: unknown) => {
    where.push(sql);
    params.push(value);
  };
  if (filter.state) add('state = ?', filter.state);
  if (filter.action) add('action = ?', filter.action);
  if (filter.authorId !== undefined) add('author_id = ?', filter.authorId);
  if (filter.projectId !== undefined) add('project_id = ?', filter.projectId);
  if (filter.groupId !== undefined) add('group_id = ?', filter.groupId);
  if (filter.type) add('target_type = ?', filter.type);
  return selectPage<TodoRow>(db, '*', `FROM todos WHERE ${where.join(' AND ')}`, 'id DESC', params, page);
}

/** Deletes the todos about these targets (todos do not cascade from their polymorphic target). */
export function deleteTodosOfTargets(db: Db, type: TodoTargetType, targetIds: readonly number[]): void {
  prepare(db, 'DELETE FROM todos WHERE target_type = ? AND target_id IN (SELECT value FROM json_each(?))').run(type, JSON.stringify(targetIds));
}

/** Hands the todos a user authored to another user (a deleted user's to the ghost user); their own todos go with them. */
export function moveTodosToAuthor(db: Db, fromUserId: number, toUserId: number): void {
  prepare(db, 'UPDATE todos SET author_id = ? WHERE author_id = ?').run(toUserId, fromUserId);
}

