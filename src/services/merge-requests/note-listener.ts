import { findMergeRequestById } from '../../db/tables/merge-requests.js';
import type { SiteContext } from '../../site-context.js';
import type { NoteChange } from '../issuables/note-changes.js';
import { mergeRequestNoteHooks } from './hooks.js';
import { mergeRequestNoteTodos } from './todos.js';

/**
 * The note-change listener (issuables/note-changes.ts) for comments on merge requests: the todos
 * a new comment gives and resolves, and the `note_events` hooks (GitLab sends them for new comments only).
 */
export function mergeRequestNotes(ctx: SiteContext, change: NoteChange): void {
  if (change.action !== 'created' || change.noteable.type !== 'MergeRequest') return;
  const mergeRequest = findMergeRequestById(ctx.db, change.noteable.id);
  if (!mergeRequest) return;
  mergeRequestNoteTodos(ctx.db, change.actor, change.noteable.project, mergeRequest, change.note);
  mergeRequestNoteHooks(ctx, change.actor, change.noteable.project, mergeRequest, change.note);
}
