import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import { discussionIdsPage, makeDiscussionNotes, notesOfDiscussions, type NoteRow } from '../../db/tables/notes.js';
import { badRequest, notFound } from '../../errors.js';
import type { SiteContext } from '../../site-context.js';
import type { Actor } from '../users/authentication.js';
import type { Noteable } from './noteables.js';
import { createNote, resolveNote, type NoteInput } from './notes.js';

/** A discussion: the notes sharing a discussion id, oldest first. */
export interface Discussion {
  readonly id: string;
  readonly notes: readonly NoteRow[];
}

/** A page of the noteable's discussions, oldest first, each with its notes (two queries). */
export function listDiscussions(db: Db, noteable: Noteable, page: Page): Paged<Discussion> {
  const ids = discussionIdsPage(db, noteable.type, noteable.id, page);
  const notes = notesOfDiscussions(db, noteable.type, noteable.id, ids.rows);
  const byId = new Map<string, NoteRow[]>(ids.rows.map((id) => [id, []]));
  for (const note of notes) byId.get(note.discussion_id)?.push(note);
  return { rows: ids.rows.map((id) => ({ id, notes: byId.get(id)! })), total: ids.total };
}

/** One discussion of the noteable; 404 `Discussion Not Found` otherwise (GitLab's list of its notes says `Notes`). */
export function getDiscussion(db: Db, noteable: Noteable, discussionId: string, resource: 'Discussion' | 'Notes' = 'Discussion'): Discussion {
  const notes = notesOfDiscussions(db, noteable.type, noteable.id, [discussionId]);
  if (!notes.length) throw notFound(resource);
  return { id: discussionId, notes };
}

/** Opens a thread on the noteable with its first note. */
export function startDiscussion(ctx: SiteContext, actor: Actor, noteable: Noteable, input: NoteInput): Discussion {
  const note = createNote(ctx, actor, noteable, input, { kind: 'discussion' });
  return getDiscussion(ctx.db, noteable, note.discussion_id);
}

/**
 * Replies in a discussion (404 `Discussion Not Found` when the noteable has none of that id). A
 * single note becomes a thread when answered (GitLab's convert_to_discussion!); a system note
 * takes no reply (400 `Discussion can not be replied to.`).
 */
export function replyToDiscussion(ctx: SiteContext, actor: Actor, noteable: Noteable, discussionId: string, input: NoteInput): NoteRow {
  const first = getDiscussion(ctx.db, noteable, discussionId).notes[0];
  if (first.system === 1) throw badRequest('400 (Bad request) "Discussion can not be replied to." not given');
  return inTransaction(ctx.db, () => {
    const note = createNote(ctx, actor, noteable, input, { kind: 'reply', discussionId });
    makeDiscussionNotes(ctx.db, discussionId);
    return note;
  });
}

/** Whether a discussion is a single note that nobody answered (GitLab's IndividualNoteDiscussion). */
export const isIndividualNote = (discussion: Discussion): boolean => discussion.notes.length === 1 && discussion.notes[0].type === null;

/**
 * Resolves or unresolves a whole thread of a merge request (PUT .../discussions/:discussion_id
 * with `resolved`): each resolvable note of it, as the actor may resolve them (403 otherwise);
 * 400 `Discussion is not resolvable` when none is.
 */
export function resolveDiscussion(ctx: SiteContext, actor: Actor, noteable: Noteable, discussionId: string, resolved: boolean): Discussion {
  const discussion = getDiscussion(ctx.db, noteable, discussionId);
  const resolvable = discussion.notes.filter((note) => note.resolvable === 1);
  if (!resolvable.length) throw badRequest('400 (Bad request) "Discussion is not resolvable" not given');
  inTransaction(ctx.db, () => {
    for (const note of resolvable) resolveNote(ctx, actor, noteable, note.id, resolved);
  });
  return getDiscussion(ctx.db, noteable, discussionId);
}
