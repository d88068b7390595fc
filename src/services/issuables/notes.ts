import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import { deleteAwardsOf } from '../../db/tables/award-emoji.js';
import { deleteEventsOfTargets } from '../../db/tables/events.js';
import {
  deleteNoteRow,
  findNoteById,
  findNoteOf,
  insertNote,
  notesOfDiscussions,
  notesPage,
  setNoteResolved,
  updateNoteBody,
  type NoteOrder,
  type NoteRow,
} from '../../db/tables/notes.js';
import { usersByIds } from '../../db/tables/project-relations.js';
import type { NoteRelations } from '../../entities/notes.js';
import { badRequest, forbidden, notFound } from '../../errors.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';
import { canAdminNote, canCreateNote, canResolveNote, canSetNoteCreatedAt } from '../permissions.js';
import type { Actor } from '../users/authentication.js';
import { announceNoteChange } from './note-changes.js';
import { noteHomeOf, noteProjectIdOf, touchNoteable, type Noteable } from './noteables.js';
import { recordEvent } from './record-events.js';

/** GitLab's Note validates its text: present, at most a million characters. */
const BODY_MAX = 1_000_000;

/** A new discussion id: 40 hex digits, as GitLab's Discussion ids. */
export const newDiscussionId = (): string => randomBytes(20).toString('hex');

/**
 * A note text GitLab's Note model refuses, in the body GitLab's API gives (`bad_request!` of the
 * model's messages: `400 (Bad request) "Note {:note=>["can't be blank"]}" not given`).
 */
export function checkBody(body: string): void {
  const problem = !body.trim() ? "can't be blank" : body.length > BODY_MAX ? `is too long (maximum is ${BODY_MAX} characters)` : null;
  if (problem) throw badRequest(`400 (Bad request) "Note {:note=>["${problem}"]}" not given`);
}

/** A page of the noteable's notes, system notes included (GitLab's default: newest first by created_at). */
export function listNotes(db: Db, noteable: Noteable, order: NoteOrder, page: Page): Paged<NoteRow> {
  return notesPage(db, noteable.type, noteable.id, order, page);
}

/** One note of the noteable; 404 `Not found` for a note of anything else. */
export function getNote(db: Db, noteable: Noteable, noteId: number): NoteRow {
  const note = findNoteOf(db, noteable.type, noteable.id, noteId);
  if (!note) throw notFound();
  return note;
}

/** What the note views need beside the rows: authors and resolvers, one query for a page. */
export function loadNoteRelations(db: Db, noteable: Noteable, notes: readonly NoteRow[]): NoteRelations {
  const ids = notes.flatMap((note) => (note.resolved_by_id === null ? [note.author_id] : [note.author_id, note.resolved_by_id]));
  return { users: usersByIds(db, [...new Set(ids)]), noteableIid: noteable.iid };
}

/** A comment's text and, for owners and admins, its backdated creation time; on a merge request, a new thread may sit on a diff `position`. */
export interface NoteInput {
  readonly body: string;
  readonly createdAt?: string;
  readonly position?: Readonly<Record<string, string | number | null>>;
}

/** Where a new note goes: on its own (`note`), opening a thread (`discussion`), or into an existing discussion. */
export type NotePlace = { readonly kind: 'note' } | { readonly kind: 'discussion' } | { readonly kind: 'reply'; readonly discussionId: string };

/**
 * Writes a user's note on a noteable the actor may read (GitLab's Notes::CreateService): 403 unless
 * the actor may comment (a locked discussion takes members only), the noteable's updated_at moves,
 * and a `commented` event is recorded. A reply to a single note turns that note into a thread.
 * Threads on a merge request are resolvable; one opened on a diff `position` is a DiffNote, and
 * its replies keep that type and position.
 */
export function createNote(ctx: SiteContext, actor: Actor, noteable: Noteable, input: NoteInput, place: NotePlace): NoteRow {
  const { db } = ctx;
  if (!canCreateNote(db, actor, noteHomeOf(noteable), noteable)) throw forbidden();
  checkBody(input.body);
  return inTransaction(db, () => {
    const now = nowIso();
    const createdAt = input.createdAt !== undefined && canSetNoteCreatedAt(db, actor, noteHomeOf(noteable)) ? input.createdAt : now;
    const threaded = place.kind !== 'note';
    const thread = threadShape(db, noteable, input, place);
    const id = insertNote(db, {
      project_id: noteProjectIdOf(noteable),
      noteable_type: noteable.type,
      noteable_id: noteable.id,
      commit_id: null,
      author_id: actor.user.id,
      body: input.body,
      system: 0,
      discussion_id: place.kind === 'reply' ? place.discussionId : newDiscussionId(),
      type: thread.type ?? (threaded ? 'DiscussionNote' : null),
      resolvable: noteable.type === 'MergeRequest' && threaded ? 1 : 0,
      resolved_at: null,
      resolved_by_id: null,
      position: thread.position,
      created_at: createdAt,
      updated_at: createdAt,
    });
    touchNoteable(db, noteable, now);
    const note = findNoteById(db, id)!;
    recordEvent(db, actor.user.id, noteable.type === 'Epic' ? { groupId: noteable.group.id } : { projectId: noteable.project.id }, { action: 'commented', target: { type: note.type ?? 'Note', id, noteableTitle: noteable.title } }, createdAt);
    announceNoteChange(ctx, { action: 'created', actor: actor.user, noteable, note, previousBody: null });
    return note;
  });
}

/** The type and position a new note takes from its place: a DiffNote on a merge request's position, or the thread it replies to. */
function threadShape(db: Db, noteable: Noteable, input: NoteInput, place: NotePlace): { type: 'DiffNote' | null; position: string | null } {
  if (noteable.type !== 'MergeRequest') return { type: null, position: null };
  if (place.kind === 'discussion' && input.position) return { type: 'DiffNote', position: JSON.stringify(input.position) };
  if (place.kind !== 'reply') return { type: null, position: null };
  const [first] = notesOfDiscussions(db, noteable.type, noteable.id, [place.discussionId]);
  return first?.type === 'DiffNote' ? { type: 'DiffNote', position: first.position } : { type: null, position: null };
}

/**
 * Writes a system note (GitLab's SystemNoteService): authored by whoever made the change, its own
 * discussion, no event and no touch of the noteable. Runs in the caller's transaction.
 */
export function addSystemNote(db: Db, noteable: Noteable, authorId: number, body: string, at: string): number {
  return insertNote(db, {
    project_id: noteProjectIdOf(noteable),
    noteable_type: noteable.type,
    noteable_id: noteable.id,
    commit_id: null,
    author_id: authorId,
    body,
    system: 1,
    discussion_id: newDiscussionId(),
    type: null,
    resolvable: 0,
    resolved_at: null,
    resolved_by_id: null,
    position: null,
    created_at: at,
    updated_at: at,
  });
}

/** The note, once the actor may edit it (its author, or admin_note; never a system note): 404 then 403. */
function editableNote(db: Db, actor: Actor, noteable: Noteable, noteId: number): NoteRow {
  const note = getNote(db, noteable, noteId);
  if (!canAdminNote(db, actor, noteHomeOf(noteable), noteable, note)) throw forbidden();
  return note;
}

/** Changes a note's text (GitLab's Notes::UpdateService); the noteable's updated_at moves. */
export function updateNote(ctx: SiteContext, actor: Actor, noteable: Noteable, noteId: number, body: string): NoteRow {
  const { db } = ctx;
  const note = editableNote(db, actor, noteable, noteId);
  checkBody(body);
  return inTransaction(db, () => {
    const now = nowIso();
    updateNoteBody(db, note.id, body, now);
    touchNoteable(db, noteable, now);
    const updated = findNoteById(db, note.id)!;
    announceNoteChange(ctx, { action: 'updated', actor: actor.user, noteable, note: updated, previousBody: note.body });
    return updated;
  });
}

/** Deletes a note with its award emoji and events (polymorphic rows that do not cascade); its todos follow by foreign key. */
export function deleteNote(ctx: SiteContext, actor: Actor, noteable: Noteable, noteId: number): void {
  const { db } = ctx;
  const note = editableNote(db, actor, noteable, noteId);
  inTransaction(db, () => {
    announceNoteChange(ctx, { action: 'deleted', actor: actor.user, noteable, note, previousBody: null });
    deleteAwardsOf(db, 'Note', [note.id]);
    deleteEventsOfTargets(db, note.type ?? 'Note', [note.id]);
    deleteNoteRow(db, note.id);
    touchNoteable(db, noteable, nowIso());
  });
}

/**
 * Resolves or unresolves a note (GitLab's resolve_note): 403 unless the actor may, then 400 `Note is
 * not resolvable` for a note that is not part of a resolvable thread (every note of an issue; merge
 * request diff threads are resolvable).
 */
export function resolveNote(ctx: SiteContext, actor: Actor, noteable: Noteable, noteId: number, resolved: boolean): NoteRow {
  const { db } = ctx;
  const note = getNote(db, noteable, noteId);
  if (!canResolveNote(db, actor, noteHomeOf(noteable), noteable, note)) throw forbidden();
  if (note.resolvable !== 1) throw badRequest('400 (Bad request) "Note is not resolvable" not given');
  return inTransaction(db, () => {
    setNoteResolved(db, note.id, resolved ? actor.user.id : null, nowIso());
    return findNoteById(db, note.id)!;
  });
}
