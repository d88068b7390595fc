import type { Request, Response } from 'express';
import type { NoteRow } from '../../db/tables/notes.js';
import { usersByIds } from '../../db/tables/project-relations.js';
import { commitNoteView, discussionView, noteView, type NoteRelations } from '../../entities/notes.js';
import { badRequest } from '../../errors.js';
import { isIndividualNote, type Discussion } from '../../services/issuables/discussions.js';
import {
  commentOnCommit,
  deleteCommitNote,
  findNotedCommit,
  getCommitDiscussion,
  getCommitNote,
  listCommitDiscussions,
  listCommitNotes,
  replyToCommitDiscussion,
  startCommitDiscussion,
  updateCommitNote,
} from '../../services/repository/commit-notes.js';
import type { SiteContext } from '../../site-context.js';
import { discussionNoteUpdateParams, noteCreateParams } from '../issuables/note-params.js';
import { loadProject, projectOf, requireAbility, requireActor, signedIn } from '../middleware/guards.js';
import { paramsGuard, pathId } from '../middleware/value-guards.js';
import { paged, sendPage } from '../pagination.js';
import { int, oneOf, required, str } from '../params.js';
import type { Route } from '../routes.js';
import { sendJson, sendNoContent } from '../respond.js';

/** Authors and resolvers of the notes, one query; commits have no iid. */
function relationsOf(ctx: SiteContext, notes: readonly NoteRow[]): NoteRelations {
  const ids = notes.flatMap((note) => (note.resolved_by_id === null ? [note.author_id] : [note.author_id, note.resolved_by_id]));
  return { users: usersByIds(ctx.db, [...new Set(ids)]), noteableIid: null };
}

const commitOf = (ctx: SiteContext, req: Request) => findNotedCommit(ctx, projectOf(req), String(req.params.sha));
const discussionIdOf = (req: Request): string => String(req.params.discussion_id);
const noteId = pathId('note_id');

/**
 * POST commits/:sha/comments: `note` (400 `note is missing`), and `path` with `line` (400 `line is
 * missing` without it) and `line_type` (`new`, the default, or `old`), as Grape's `given :path`.
 */
const commitCommentParams = paramsGuard('commitCommentParams', { note: required(str()), path: str(), line: int(), line_type: oneOf(['new', 'old'] as const) }, (params) => {
  if (params.path === undefined) return { note: params.note, at: null };
  if (params.line === undefined) throw badRequest('line is missing');
  return { note: params.note, at: { path: params.path, line: params.line, lineType: params.line_type ?? 'new' } };
});

function discussionsJson(ctx: SiteContext, discussions: readonly Discussion[]) {
  const rel = relationsOf(ctx, discussions.flatMap((discussion) => discussion.notes));
  return discussions.map((discussion) => discussionView(discussion.id, isIndividualNote(discussion), discussion.notes, rel, ctx));
}

const sendNote = (ctx: SiteContext, res: Response, status: number, note: NoteRow) => sendJson(res, status, noteView(note, relationsOf(ctx, [note]), ctx));

async function listComments(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const commit = await commitOf(ctx, req);
  const page = paged.of(req);
  const { rows, total } = listCommitNotes(ctx.db, projectOf(req), commit, page);
  const rel = relationsOf(ctx, rows);
  sendPage(req, res, ctx.externalUrl, page, rows.map((row) => commitNoteView(row, rel, ctx)), total);
}

async function addComment(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { note, at } = commitCommentParams.of(req);
  const row = await commentOnCommit(ctx, requireActor(req), projectOf(req), await commitOf(ctx, req), note, at);
  sendJson(res, 201, commitNoteView(row, relationsOf(ctx, [row]), ctx));
}

async function listDiscussions(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const commit = await commitOf(ctx, req);
  const page = paged.of(req);
  const { rows, total } = listCommitDiscussions(ctx.db, projectOf(req), commit, page);
  sendPage(req, res, ctx.externalUrl, page, discussionsJson(ctx, rows), total);
}

async function showDiscussion(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const discussion = getCommitDiscussion(ctx.db, projectOf(req), await commitOf(ctx, req), discussionIdOf(req));
  sendJson(res, 200, discussionsJson(ctx, [discussion])[0]);
}

async function startDiscussion(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const discussion = startCommitDiscussion(ctx, requireActor(req), projectOf(req), await commitOf(ctx, req), noteCreateParams.of(req));
  sendJson(res, 201, discussionsJson(ctx, [discussion])[0]);
}

async function discussionNotes(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const { notes } = getCommitDiscussion(ctx.db, projectOf(req), await commitOf(ctx, req), discussionIdOf(req), 'Notes');
  const rel = relationsOf(ctx, notes);
  sendJson(res, 200, notes.map((note) => noteView(note, rel, ctx)));
}

async function reply(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  sendNote(ctx, res, 201, replyToCommitDiscussion(ctx, requireActor(req), projectOf(req), await commitOf(ctx, req), discussionIdOf(req), noteCreateParams.of(req)));
}

async function showNote(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  sendNote(ctx, res, 200, getCommitNote(ctx.db, projectOf(req), await commitOf(ctx, req), noteId.of(req)));
}

/** PUT of a note in a discussion: a new body; commit notes are never resolvable (400, as GitLab's). */
async function updateNote(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  const change = discussionNoteUpdateParams.of(req);
  const project = projectOf(req);
  const commit = await commitOf(ctx, req);
  if ('resolved' in change) {
    getCommitNote(ctx.db, project, commit, noteId.of(req));
    throw badRequest('400 (Bad request) "Note is not resolvable" not given');
  }
  sendNote(ctx, res, 200, updateCommitNote(ctx, requireActor(req), project, commit, noteId.of(req), change.body));
}

async function removeNote(ctx: SiteContext, req: Request, res: Response): Promise<void> {
  deleteCommitNote(ctx, requireActor(req), projectOf(req), await commitOf(ctx, req), noteId.of(req));
  sendNoContent(res);
}

const base = '/projects/:id/repository/commits/:sha';
const discussion = `${base}/discussions/:discussion_id`;
/** Whoever may download the code reads a commit and its notes (GitLab's commits API). */
const reader = [loadProject(), requireAbility('download_code')];

/**
 * Commit comments (GitLab's commits API: reads for code readers, comments for signed-in callers;
 * its `before` authorizes download_code, 404 and 403, before Grape reads the parameters, 400) and
 * commit discussions (GitLab's discussions API, signed-in callers only: 401 first, then the
 * parameters, then the project, as the tracker's). Who may write is asked by the services (403).
 */
export const commitNoteRoutes: readonly Route[] = [
  { method: 'get', path: `${base}/comments`, guards: [...reader, paged], handler: listComments },
  { method: 'post', path: `${base}/comments`, guards: [signedIn, ...reader, commitCommentParams], handler: addComment },

  { method: 'get', path: `${base}/discussions`, guards: [signedIn, ...reader, paged], handler: listDiscussions },
  { method: 'post', path: `${base}/discussions`, guards: [signedIn, noteCreateParams, ...reader], handler: startDiscussion },
  { method: 'get', path: discussion, guards: [signedIn, ...reader], handler: showDiscussion },
  { method: 'get', path: `${discussion}/notes`, guards: [signedIn, ...reader], handler: discussionNotes },
  { method: 'post', path: `${discussion}/notes`, guards: [signedIn, noteCreateParams, ...reader], handler: reply },
  { method: 'get', path: `${discussion}/notes/:note_id`, guards: [signedIn, noteId, ...reader], handler: showNote },
  { method: 'put', path: `${discussion}/notes/:note_id`, guards: [signedIn, noteId, discussionNoteUpdateParams, ...reader], handler: updateNote },
  { method: 'delete', path: `${discussion}/notes/:note_id`, guards: [signedIn, noteId, ...reader], handler: removeNote },
];
