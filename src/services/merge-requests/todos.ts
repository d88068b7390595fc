import { inTransaction, type Db } from '../../db/connection.js';
import type { MergeRequestRow } from '../../db/tables/merge-requests.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { usersByIds } from '../../db/tables/project-relations.js';
import { findTodoOfUser, hasPendingTodo, insertTodo, markTargetTodosDone, type TodoAction, type TodoRow } from '../../db/tables/todos.js';
import type { UserRow } from '../../db/tables/users.js';
import { AppError } from '../../errors.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';
import { directlyAddressedUsernames } from '../issuables/mentions.js';
import { mentionedUsers, usersOfNames } from '../issuables/todos.js';
import { userCanReadMergeRequest } from '../permissions.js';
import type { Actor } from '../users/authentication.js';
import type { MergeRequestChange } from './changes.js';

/**
 * Todos about merge requests, GitLab's TodoService as the tracker's issues have it: a todo for a
 * new assignee (`assigned`), for each user a description or a comment mentions
 * (`directly_addressed` or `mentioned`), and for the caller who marks one (`marked`); one pending
 * todo per user and merge request, only for users who may read it. Closing or merging marks the
 * actor's pending todos about it done.
 */
export function mergeRequestTodos(ctx: SiteContext, change: MergeRequestChange): void {
  const { db } = ctx;
  const { mergeRequest, project, actor, previous } = change;
  if (change.action === 'deleted' || change.action === 'pushed') return;
  const now = nowIso();
  if (change.action === 'closed' || change.action === 'merged') markTargetTodosDone(db, actor.id, 'MergeRequest', mergeRequest.id, now);
  const skip = new Set<number>();
  if (mergeRequest.assignee_id !== null && mergeRequest.assignee_id !== (previous?.assignee_id ?? null)) {
    const assignee = usersByIds(db, [mergeRequest.assignee_id]).get(mergeRequest.assignee_id);
    if (assignee) createTodos(db, mergeRequest, project, actor, [assignee], 'assigned', null, mergeRequest.title, now);
    skip.add(mergeRequest.assignee_id);
  }
  if (change.action === 'opened' || (previous && previous.description !== mergeRequest.description)) {
    for (const user of previous ? mentionedUsers(db, previous.description, actor) : []) skip.add(user.id);
    mentionTodos(db, mergeRequest, project, actor, mergeRequest.description, null, mergeRequest.title, skip, now);
  }
}

/** GitLab 13.8's `review_requested` todo for each newly asked reviewer (TodoService#reassigned_reviewable). */
export function reviewRequestedTodos(db: Db, mergeRequest: MergeRequestRow, project: ProjectRow, author: UserRow, reviewerIds: readonly number[], now: string): void {
  const reviewers = usersByIds(db, reviewerIds);
  createTodos(db, mergeRequest, project, author, reviewerIds.flatMap((id) => reviewers.get(id) ?? []), 'review_requested', null, mergeRequest.title, now);
}

/** A new comment on a merge request (TodoService#new_note): the author's pending todos about it are done, the users it mentions get todos. */
export function mergeRequestNoteTodos(db: Db, author: UserRow, project: ProjectRow, mergeRequest: MergeRequestRow, note: { readonly id: number; readonly body: string }): void {
  const now = nowIso();
  markTargetTodosDone(db, author.id, 'MergeRequest', mergeRequest.id, now);
  mentionTodos(db, mergeRequest, project, author, note.body, note.id, note.body, new Set(), now);
}

function mentionTodos(db: Db, mergeRequest: MergeRequestRow, project: ProjectRow, author: UserRow, text: string | null, noteId: number | null, body: string, skip: Set<number>, now: string): void {
  const addressed = usersOfNames(db, directlyAddressedUsernames(text), author).filter((user) => !skip.has(user.id));
  createTodos(db, mergeRequest, project, author, addressed, 'directly_addressed', noteId, body, now);
  for (const user of addressed) skip.add(user.id);
  const mentioned = mentionedUsers(db, text, author).filter((user) => !skip.has(user.id));
  createTodos(db, mergeRequest, project, author, mentioned, 'mentioned', noteId, body, now);
}

/** One todo per user who may read the merge request and has no pending todo about it yet; returns the ids made. */
function createTodos(db: Db, mergeRequest: MergeRequestRow, project: ProjectRow, author: UserRow, users: readonly UserRow[], action: TodoAction, noteId: number | null, body: string, now: string): number[] {
  const made: number[] = [];
  for (const user of users) {
    if (hasPendingTodo(db, user.id, 'MergeRequest', mergeRequest.id) || !userCanReadMergeRequest(db, user, project)) continue;
    made.push(
      insertTodo(db, { user_id: user.id, author_id: author.id, project_id: project.id, target_type: 'MergeRequest', target_id: mergeRequest.id, action, note_id: noteId, body, created_at: now }),
    );
  }
  return made;
}

/** POST .../merge_requests/:iid/todo: a `marked` todo for the caller; 304 when they have a pending one about it. */
export function markMergeRequestTodo(db: Db, actor: Actor, project: ProjectRow, mergeRequest: MergeRequestRow): TodoRow {
  return inTransaction(db, () => {
    if (hasPendingTodo(db, actor.user.id, 'MergeRequest', mergeRequest.id)) throw new AppError('not_modified');
    const [id] = createTodos(db, mergeRequest, project, actor.user, [actor.user], 'marked', null, mergeRequest.title, nowIso());
    if (id === undefined) throw new AppError('not_modified');
    return findTodoOfUser(db, actor.user.id, id)!;
  });
}
