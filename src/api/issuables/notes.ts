import type { Request, Response } from 'express';
import type { NoteRow } from '../../db/tables/notes.js';
import { discussionView, noteView } from '../../entities/notes.js';
import { getDiscussion, isIndividualNote, listDiscussions, replyToDiscussion, resolveDiscussion, startDiscussion, type Discussion } from '../../services/issuables/discussions.js';
import type { Noteable } from '../../services/issuables/noteables.js';
import { createNote, deleteNote, getNote, listNotes, loadNoteRelations, resolveNote, updateNote } from '../../services/issuables/notes.js';
import type { SiteContext } from '../../site-context.js';
import { requireActor } from '../middleware/guards.js';
import { pathId, type ValueGuard } from '../middleware/value-guards.js';
import { paged, sendPage } from '../pagination.js';
import { sendJson, sendNoContent } from '../respond.js';
import { discussionNoteUpdateParams, discussionResolveParams, noteCreateParams, noteListParams, noteUpdateParams } from './note-params.js';

/** The `:note_id` of a route (400 `note_id is invalid`). */
export const noteId = pathId('note_id');

const discussionIdOf = (req: Request): string => String(req.params.discussion_id);

function sendNote(ctx: SiteContext, res: Response, status: number, noteable: Noteable, note: NoteRow): void {
  sendJson(res, status, noteView(note, loadNoteRelations(ctx.db, noteable, [note]), ctx));
}

function discussionJson(ctx: SiteContext, noteable: Noteable, discussions: readonly Discussion[]) {
  const rel = loadNoteRelations(ctx.db, noteable, discussions.flatMap((discussion) => discussion.notes));
  return discussions.map((discussion) => discussionView(discussion.id, isIndividualNote(discussion), discussion.notes, rel, ctx));
}

/**
 * The handlers of the notes and discussions of one kind of noteable (issues now, merge requests
 * next), reading the noteable its routes loaded through `noteable`.
 */
export function noteHandlers(noteable: ValueGuard<Noteable>) {
  return {
    list(ctx: SiteContext, req: Request, res: Response): void {
      const subject = noteable.of(req);
      const { order, page } = noteListParams.of(req);
      const result = listNotes(ctx.db, subject, order, page);
      const rel = loadNoteRelations(ctx.db, subject, result.rows);
      sendPage(req, res, ctx.externalUrl, page, result.rows.map((note) => noteView(note, rel, ctx)), result.total);
    },
    show(ctx: SiteContext, req: Request, res: Response): void {
      const subject = noteable.of(req);
      sendNote(ctx, res, 200, subject, getNote(ctx.db, subject, noteId.of(req)));
    },
    create(ctx: SiteContext, req: Request, res: Response): void {
      const subject = noteable.of(req);
      sendNote(ctx, res, 201, subject, createNote(ctx, requireActor(req), subject, noteCreateParams.of(req), { kind: 'note' }));
    },
    update(ctx: SiteContext, req: Request, res: Response): void {
      const subject = noteable.of(req);
      sendNote(ctx, res, 200, subject, updateNote(ctx, requireActor(req), subject, noteId.of(req), noteUpdateParams.of(req)));
    },
    /** PUT .../discussions/:discussion_id/notes/:note_id: a new body, or resolved true/false. */
    updateInDiscussion(ctx: SiteContext, req: Request, res: Response): void {
      const subject = noteable.of(req);
      const change = discussionNoteUpdateParams.of(req);
      const actor = requireActor(req);
      const note = 'resolved' in change ? resolveNote(ctx, actor, subject, noteId.of(req), change.resolved) : updateNote(ctx, actor, subject, noteId.of(req), change.body);
      sendNote(ctx, res, 200, subject, note);
    },
    remove(ctx: SiteContext, req: Request, res: Response): void {
      deleteNote(ctx, requireActor(req), noteable.of(req), noteId.of(req));
      sendNoContent(res);
    },
    listDiscussions(ctx: SiteContext, req: Request, res: Response): void {
      const subject = noteable.of(req);
      const page = paged.of(req);
      const result = listDiscussions(ctx.db, subject, page);
      sendPage(req, res, ctx.externalUrl, page, discussionJson(ctx, subject, result.rows), result.total);
    },
    showDiscussion(ctx: SiteContext, req: Request, res: Response): void {
      const subject = noteable.of(req);
      sendJson(res, 200, discussionJson(ctx, subject, [getDiscussion(ctx.db, subject, discussionIdOf(req))])[0]);
    },
    startDiscussion(ctx: SiteContext, req: Request, res: Response): void {
      const subject = noteable.of(req);
      sendJson(res, 201, discussionJson(ctx, subject, [startDiscussion(ctx, requireActor(req), subject, noteCreateParams.of(req))])[0]);
    },
    /** GET .../discussions/:discussion_id/notes: the discussion's notes, unpaged as GitLab lists them. */
    discussionNotes(ctx: SiteContext, req: Request, res: Response): void {
      const subject = noteable.of(req);
      const { notes } = getDiscussion(ctx.db, subject, discussionIdOf(req), 'Notes');
      const rel = loadNoteRelations(ctx.db, subject, notes);
      sendJson(res, 200, notes.map((note) => noteView(note, rel, ctx)));
    },
    /** PUT .../discussions/:discussion_id (merge requests): `resolved` for the whole thread. */
    resolveThread(ctx: SiteContext, req: Request, res: Response): void {
      const subject = noteable.of(req);
      const discussion = resolveDiscussion(ctx, requireActor(req), subject, discussionIdOf(req), discussionResolveParams.of(req));
      sendJson(res, 200, discussionJson(ctx, subject, [discussion])[0]);
    },
    reply(ctx: SiteContext, req: Request, res: Response): void {
      const subject = noteable.of(req);
      sendNote(ctx, res, 201, subject, replyToDiscussion(ctx, requireActor(req), subject, discussionIdOf(req), noteCreateParams.of(req)));
    },
  };
}
