import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import { deleteAwardsOf } from '../../db/tables/award-emoji.js';
import { deleteEventsOfTargets } from '../../db/tables/events.js';
import {
  commitDiscussionIdsPage,
  commitNotesPage,
  deleteNoteRow,
  findCommitNote,
  findNoteById,
  insertNote,
  makeDiscussionNotes,
  notesOfCommitDiscussions,
  updateNoteBody,
  type NoteRow,
} from '../../db/tables/notes.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { badRequest, forbidden, notFound } from '../../errors.js';
import { readCommit, type CommitRecord } from '../../git/commit-log.js';
import { diffFiles, findDiffLine } from '../../git/diff.js';
import { repositoryOf } from '../../git/in-repository.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';
import type { Discussion } from '../issuables/discussions.js';
import { checkBody, newDiscussionId } from '../issuables/notes.js';
import { fireProjectHooks } from '../hooks/fire.js';
import { commitNotePayload } from '../hooks/payloads.js';
import { hookProjectOf, hookUserOf } from '../hooks/subjects.js';
import { recordEvent } from '../issuables/record-events.js';
import { canAdminNote, canCreateNote, canSetNoteCreatedAt } from '../permissions.js';
import type { Actor } from '../users/authentication.js';
import { commitOf } from './project-commits.js';

/**
 * Comments and discussions on a commit (GitLab's commit notes: noteable_type 'Commit', keyed by
 * the project and the commit's sha). A commit is read by whoever may download the code; who may
 * write asks the note rules of services/permissions.ts, as the tracker's notes do (a commit has
 * no discussion lock). A new note fires the project's note hooks; mentions make no todos here.
 */

/** The commit a route names, read from the repository: 404 `Commit` when the ref names none. */
export async function findNotedCommit(ctx: SiteContext, project: ProjectRow, ref: string): Promise<CommitRecord> {
  const repository = repositoryOf(ctx, project);
  return readCommit(repository, await commitOf(repository, ref));
}

const UNLOCKED = { discussion_locked: null } as const;

/** GitLab's DiffNote position, for a comment on a line of the commit's diff against its first parent. */
interface CommitPosition {
  readonly base_sha: string | null;
  readonly start_sha: string | null;
  readonly head_sha: string;
  readonly old_path: string;
  readonly new_path: string;
  readonly position_type: 'text';
  readonly old_line: number | null;
  readonly new_line: number | null;
}

/** Where a comment goes on the commit's diff: the file's new path, a line number and its side. */
export interface CommentLine {
  readonly path: string;
  readonly line: number;
  readonly lineType: 'new' | 'old';
}

/** The line of the commit's diff a comment names, as a DiffNote position; null when the diff has no such line. */
async function positionOf(ctx: SiteContext, project: ProjectRow, commit: CommitRecord, at: CommentLine): Promise<CommitPosition | null> {
  const parent = commit.parentIds[0] ?? null;
  const file = (await diffFiles(repositoryOf(ctx, project), parent, commit.id)).find((diff) => diff.newPath === at.path);
  const line = file ? findDiffLine(file.diff, at.line, at.lineType) : null;
  if (!file || !line) return null;
  return {
    base_sha: parent,
    start_sha: parent,
    head_sha: commit.id,
    old_path: file.oldPath,
    new_path: file.newPath,
    position_type: 'text',
    old_line: line.type === 'old' ? line.oldPos : null,
    new_line: line.type === 'new' ? line.newPos : null,
  };
}

/** A page of the commit's notes, oldest first. */
export function listCommitNotes(db: Db, project: ProjectRow, commit: CommitRecord, page: Page): Paged<NoteRow> {
  return commitNotesPage(db, project.id, commit.id, page);
}

interface NewCommitNote {
  readonly body: string;
  readonly createdAt?: string;
  readonly position: CommitPosition | null;
  readonly discussion: { readonly kind: 'note' } | { readonly kind: 'discussion' } | { readonly kind: 'reply'; readonly discussionId: string };
}

/**
 * Calls the project's note hooks for a new comment on a commit, with GitLab's Note Hook payload, in
 * the note's transaction (delivery follows the commit).
 */
function commitNoteHooks(ctx: SiteContext, actor: Actor, project: ProjectRow, commit: CommitRecord, note: NoteRow): void {
  if (!ctx.webhooks.delivers) return;
  const hookCommit = { id: commit.id, message: commit.message, timestamp: commit.committedDate, author: { name: commit.authorName, email: commit.authorEmail } };
  fireProjectHooks(ctx, project, 'note', commitNotePayload({ user: hookUserOf(ctx, actor.user), project: hookProjectOf(ctx, project), note, commit: hookCommit }));
}

/** Writes a user's note on the commit, its `commented` event and its note hooks, in one transaction. */
function insertCommitNote(ctx: SiteContext, actor: Actor, project: ProjectRow, commit: CommitRecord, note: NewCommitNote): NoteRow {
  const { db } = ctx;
  return inTransaction(db, () => {
    const now = nowIso();
    const createdAt = note.createdAt !== undefined && canSetNoteCreatedAt(db, actor, { project }) ? note.createdAt : now;
    const threaded = note.discussion.kind !== 'note';
    const id = insertNote(db, {
      project_id: project.id,
      noteable_type: 'Commit',
      noteable_id: null,
      commit_id: commit.id,
      author_id: actor.user.id,
      body: note.body,
      system: 0,
      discussion_id: note.discussion.kind === 'reply' ? note.discussion.discussionId : newDiscussionId(),
      type: note.position ? 'DiffNote' : threaded ? 'DiscussionNote' : null,
      resolvable: 0,
      resolved_at: null,
      resolved_by_id: null,
      position: note.position ? JSON.stringify(note.position) : null,
      created_at: createdAt,
      updated_at: createdAt,
    });
    const row = findNoteById(db, id)!;
    recordEvent(db, actor.user.id, { projectId: project.id }, { action: 'commented', target: { type: row.type ?? 'Note', id, noteableTitle: commit.message.split('\n', 1)[0] ?? '' } }, createdAt);
    commitNoteHooks(ctx, actor, project, commit, row);
    return row;
  });
}

/**
 * Comments on a commit (GitLab's POST commits/:sha/comments): 403 unless the actor may comment;
 * an empty text is 400 `Failed to save note {:note=>["can't be blank"]}`. With `at`, a comment on
 * the added (`new`) or removed (`old`) line of the commit's diff becomes a diff note; a line the
 * diff does not have leaves a plain comment, as GitLab's.
 */
export async function commentOnCommit(ctx: SiteContext, actor: Actor, project: ProjectRow, commit: CommitRecord, body: string, at: CommentLine | null): Promise<NoteRow> {
  if (!canCreateNote(ctx.db, actor, { project }, UNLOCKED)) throw forbidden();
  if (!body.trim()) throw badRequest('Failed to save note {:note=>["can\'t be blank"]}');
  const position = at ? await positionOf(ctx, project, commit, at) : null;
  return insertCommitNote(ctx, actor, project, commit, { body, position, discussion: { kind: 'note' } });
}

/** A page of the commit's discussions, oldest first, each with its notes (two queries). */
export function listCommitDiscussions(db: Db, project: ProjectRow, commit: CommitRecord, page: Page): Paged<Discussion> {
  const ids = commitDiscussionIdsPage(db, project.id, commit.id, page);
  const notes = notesOfCommitDiscussions(db, project.id, commit.id, ids.rows);
  const byId = new Map<string, NoteRow[]>(ids.rows.map((id) => [id, []]));
  for (const note of notes) byId.get(note.discussion_id)?.push(note);
  return { rows: ids.rows.map((id) => ({ id, notes: byId.get(id)! })), total: ids.total };
}

/** One discussion of the commit; 404 `Discussion` (or `Notes`, for the list of its notes) otherwise. */
export function getCommitDiscussion(db: Db, project: ProjectRow, commit: CommitRecord, discussionId: string, resource: 'Discussion' | 'Notes' = 'Discussion'): Discussion {
  const notes = notesOfCommitDiscussions(db, project.id, commit.id, [discussionId]);
  if (!notes.length) throw notFound(resource);
  return { id: discussionId, notes };
}

/** Opens a thread on the commit (GitLab's discussions API): 403 unless the actor may comment, 400 on an empty body. */
export function startCommitDiscussion(ctx: SiteContext, actor: Actor, project: ProjectRow, commit: CommitRecord, input: { body: string; createdAt?: string }): Discussion {
  if (!canCreateNote(ctx.db, actor, { project }, UNLOCKED)) throw forbidden();
  checkBody(input.body);
  const note = insertCommitNote(ctx, actor, project, commit, { ...input, position: null, discussion: { kind: 'discussion' } });
  return getCommitDiscussion(ctx.db, project, commit, note.discussion_id);
}

/** Replies in a discussion of the commit; a single note becomes a thread, a system note takes no reply. */
export function replyToCommitDiscussion(ctx: SiteContext, actor: Actor, project: ProjectRow, commit: CommitRecord, discussionId: string, input: { body: string; createdAt?: string }): NoteRow {
  const first = getCommitDiscussion(ctx.db, project, commit, discussionId).notes[0]!;
  if (first.system === 1) throw badRequest('400 (Bad request) "Discussion can not be replied to." not given');
  if (!canCreateNote(ctx.db, actor, { project }, UNLOCKED)) throw forbidden();
  checkBody(input.body);
  return inTransaction(ctx.db, () => {
    const note = insertCommitNote(ctx, actor, project, commit, { ...input, position: null, discussion: { kind: 'reply', discussionId } });
    makeDiscussionNotes(ctx.db, discussionId);
    return findNoteById(ctx.db, note.id)!;
  });
}

/** One note of the commit: 404 `Not found` for a note of anything else. */
export function getCommitNote(db: Db, project: ProjectRow, commit: CommitRecord, noteId: number): NoteRow {
  const note = findCommitNote(db, project.id, commit.id, noteId);
  if (!note) throw notFound();
  return note;
}

/** The note once the actor may edit it (its author, or maintainers; never a system note): 404, then 403. */
function editableCommitNote(db: Db, actor: Actor, project: ProjectRow, commit: CommitRecord, noteId: number): NoteRow {
  const note = getCommitNote(db, project, commit, noteId);
  if (!canAdminNote(db, actor, { project }, UNLOCKED, note)) throw forbidden();
  return note;
}

/** Changes a commit note's text. */
export function updateCommitNote(ctx: SiteContext, actor: Actor, project: ProjectRow, commit: CommitRecord, noteId: number, body: string): NoteRow {
  const note = editableCommitNote(ctx.db, actor, project, commit, noteId);
  checkBody(body);
  return inTransaction(ctx.db, () => {
    updateNoteBody(ctx.db, note.id, body, nowIso());
    return findNoteById(ctx.db, note.id)!;
  });
}

/** Deletes a commit note with its award emoji and events (polymorphic rows that do not cascade). */
export function deleteCommitNote(ctx: SiteContext, actor: Actor, project: ProjectRow, commit: CommitRecord, noteId: number): void {
  const note = editableCommitNote(ctx.db, actor, project, commit, noteId);
  inTransaction(ctx.db, () => {
    deleteAwardsOf(ctx.db, 'Note', [note.id]);
    deleteEventsOfTargets(ctx.db, note.type ?? 'Note', [note.id]);
    deleteNoteRow(ctx.db, note.id);
  });
}
