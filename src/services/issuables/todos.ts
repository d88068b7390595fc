import { inTransaction, type Db } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import { findIssueById, type IssueRow } from '../../db/tables/issues.js';
import { assigneeIdsOf } from '../../db/tables/issue-assignees.js';
import { groupMemberIds } from '../../db/tables/members.js';
import { findNamespaceByPath } from '../../db/tables/namespaces.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { usersByIds } from '../../db/tables/project-relations.js';
import {
  findTodoOfUser,
  hasPendingTodo,
  insertTodo,
  markAllTodosDone,
  markTargetTodosDone,
  markTodoDone,
  selectTodos,
  type TodoAction,
  type TodoFilter,
  type TodoRow,
} from '../../db/tables/todos.js';
import { usersByUsernames, type UserRow } from '../../db/tables/users.js';
import { AppError, notFound } from '../../errors.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';
import { canReadNamespace, userCanReadIssue } from '../permissions.js';
import { actingAs, type Actor } from '../users/authentication.js';
import type { IssueChange } from './changes.js';
import type { NoteChange } from './note-changes.js';
import { directlyAddressedUsernames, mentionedUsernames } from './mentions.js';

/**
 * Todos, GitLab's TodoService for issues: a todo for each new assignee (`assigned`), for each user
 * a description or a note mentions (`directly_addressed` when the text opens with the mention,
 * `mentioned` otherwise; an `@group` reaches the group's members), and for the caller who marks
 * an issue (`marked`). A user gets no second pending todo about an issue they already have one
 * for, whatever its action, and only users who may read the issue get one. Closing an issue marks
 * the closer's pending todos about it done.
 */

/** The issue-change listener (changes.ts): todos of assignments and mentions, and those a close resolves. */
export function issueTodos(ctx: SiteContext, change: IssueChange): void {
  const { db } = ctx;
  const { issue, project, actor, previous } = change;
  if (change.action === 'deleted') return;
  const now = nowIso();
  if (change.action === 'closed' || (change.action === 'moved' && previous?.state === 'opened')) markTargetTodosDone(db, actor.id, 'Issue', issue.id, now);
  if (change.action === 'moved') return;
  const assigneeIds = change.assignees ? change.assignees.current : assigneeIdsOf(db, issue.id);
  const newAssignees = change.assignees ? change.assignees.current.filter((id) => !change.assignees!.previous.includes(id)) : [];
  const target = { issue, project, assigneeIds };
  if (newAssignees.length) createTodos(db, target, actor, [...usersByIds(db, newAssignees).values()], 'assigned', null, issue.title, now);
  if (change.action === 'opened' || (previous && previous.description !== issue.description)) {
    const skip = new Set<number>(newAssignees);
    const before = previous ? mentionedUsers(db, previous.description, actor) : [];
    for (const user of before) skip.add(user.id);
    mentionTodos(db, target, actor, issue.description, null, issue.title, skip, now);
  }
}

/**
 * What a new note on an issue does to todos (TodoService#new_note), in the note's transaction: the
 * author's pending todos about the issue are done, and the users the note mentions get
 * `directly_addressed` or `mentioned` todos with the note's body as their body.
 */
function noteMentionTodos(db: Db, author: UserRow, project: ProjectRow, issue: IssueRow, note: { readonly id: number; readonly body: string }): void {
  const now = nowIso();
  markTargetTodosDone(db, author.id, 'Issue', issue.id, now);
  const target = { issue, project, assigneeIds: assigneeIdsOf(db, issue.id) };
  mentionTodos(db, target, author, note.body, note.id, note.body, new Set(), now);
}

/** A comment on an issue (note-changes.ts listener): the todos noteMentionTodos gives and resolves. */
export function noteTodos(ctx: SiteContext, change: NoteChange): void {
  if (change.action !== 'created' || change.noteable.type !== 'Issue') return;
  const issue = findIssueById(ctx.db, change.noteable.id);
  if (issue) noteMentionTodos(ctx.db, change.actor, change.noteable.project, issue, change.note);
}

/** The user's pending todos about the issue, done (TodoService#new_award_emoji: the award emoji service calls it when the user awards one). */
export function resolveIssueTodos(db: Db, user: UserRow, issueId: number): void {
  markTargetTodosDone(db, user.id, 'Issue', issueId, nowIso());
}

interface TodoTarget {
  readonly issue: IssueRow;
  readonly project: ProjectRow;
  readonly assigneeIds: readonly number[];
}

function mentionTodos(db: Db, target: TodoTarget, author: UserRow, text: string | null, noteId: number | null, body: string, skip: Set<number>, now: string): void {
  const addressed = usersOfNames(db, directlyAddressedUsernames(text), author).filter((user) => !skip.has(user.id));
  createTodos(db, target, author, addressed, 'directly_addressed', noteId, body, now);
  for (const user of addressed) skip.add(user.id);
  const mentioned = mentionedUsers(db, text, author).filter((user) => !skip.has(user.id));
  createTodos(db, target, author, mentioned, 'mentioned', noteId, body, now);
}

/** The users a text mentions, by `@username` or through an `@group` the author can see (merge request todos read it too). */
export function mentionedUsers(db: Db, text: string | null, author: UserRow): UserRow[] {
  return usersOfNames(db, mentionedUsernames(text), author);
}

/** The users `names` name: users by username, else the members of a group the author can see. */
export function usersOfNames(db: Db, names: readonly string[], author: UserRow): UserRow[] {
  if (!names.length) return [];
  const byId = new Map<number, UserRow>();
  for (const user of usersByUsernames(db, names)) byId.set(user.id, user);
  const found = new Set([...byId.values()].map((user) => user.username.toLowerCase()));
  const authorActor = actingAs(author);
  const memberIds: number[] = [];
  for (const name of names) {
    if (found.has(name.toLowerCase())) continue;
    const group = findNamespaceByPath(db, name);
    if (group && group.kind === 'group' && canReadNamespace(db, authorActor, group)) memberIds.push(...groupMemberIds(db, group.id));
  }
  for (const user of usersByIds(db, memberIds.filter((id) => !byId.has(id))).values()) byId.set(user.id, user);
  return [...byId.values()];
}

/** One todo per user who may read the issue and has no pending todo about it yet; returns those made. */
function createTodos(db: Db, target: TodoTarget, author: UserRow, users: readonly UserRow[], action: TodoAction, noteId: number | null, body: string, now: string): number[] {
  const ref = { author_id: target.issue.author_id, confidential: target.issue.confidential, assigneeIds: target.assigneeIds };
  const made: number[] = [];
  for (const user of users) {
    if (hasPendingTodo(db, user.id, 'Issue', target.issue.id)) continue;
    if (!userCanReadIssue(db, user, target.project, ref)) continue;
    made.push(
      insertTodo(db, {
        user_id: user.id,
        author_id: author.id,
        project_id: target.project.id,
        target_type: 'Issue',
        target_id: target.issue.id,
        action,
        note_id: noteId,
        body,
        created_at: now,
      }),
    );
  }
  return made;
}

/** POST .../issues/:iid/todo: a `marked` todo for the caller; 304 when they have a pending one about the issue. */
export function markIssueTodo(db: Db, actor: Actor, project: ProjectRow, issue: IssueRow, assigneeIds: readonly number[]): TodoRow {
  return inTransaction(db, () => {
    if (hasPendingTodo(db, actor.user.id, 'Issue', issue.id)) throw new AppError('not_modified');
    const [id] = createTodos(db, { issue, project, assigneeIds }, actor.user, [actor.user], 'marked', null, issue.title, nowIso());
    if (id === undefined) throw new AppError('not_modified');
    return findTodoOfUser(db, actor.user.id, id)!;
  });
}

/** The caller's todos, newest first; pending ones unless the filter says otherwise. */
export function listTodos(db: Db, actor: Actor, filter: TodoFilter, page: Page): Paged<TodoRow> {
  return selectTodos(db, actor.user.id, { ...filter, state: filter.state ?? 'pending' }, page);
}

/** POST /todos/:id/mark_as_done: the caller's todo, done; 404 `Not found` for anyone else's. */
export function markTodoAsDone(db: Db, actor: Actor, id: number): TodoRow {
  return inTransaction(db, () => {
    if (!findTodoOfUser(db, actor.user.id, id)) throw notFound();
    markTodoDone(db, id, nowIso());
    return findTodoOfUser(db, actor.user.id, id)!;
  });
}

/** POST /todos/mark_as_done: every pending todo of the caller, done. */
export function markAllTodosAsDone(db: Db, actor: Actor): void {
  inTransaction(db, () => markAllTodosDone(db, actor.user.id, nowIso()));
}
