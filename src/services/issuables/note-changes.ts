import type { NoteRow } from '../../db/tables/notes.js';
import type { UserRow } from '../../db/tables/users.js';
import type { SiteContext } from '../../site-context.js';
import { noteHooks } from './issue-hooks.js';
import { mergeRequestNotes } from '../merge-requests/note-listener.js';
import type { Noteable } from './noteables.js';
import { noteTodos } from './todos.js';

/**
 * The seam between users' comments and what follows from them, as changes.ts is for issues:
 * every create, edit and delete of a user's note announces itself inside its transaction, to the
 * todos of its `@mentions` and the `note_events` webhooks; system notes are not announced (GitLab
 * sends no note hooks and makes no mention todos for them).
 */
export interface NoteChange {
  readonly action: 'created' | 'updated' | 'deleted';
  readonly actor: UserRow;
  readonly noteable: Noteable;
  /** The note as written (for `deleted`, as it was). */
  readonly note: NoteRow;
  /** The text before an edit; null otherwise. */
  readonly previousBody: string | null;
}

export type NoteChangeListener = (ctx: SiteContext, change: NoteChange) => void;

const NOTE_CHANGE_LISTENERS: readonly NoteChangeListener[] = [noteTodos, noteHooks, mergeRequestNotes];

/** Tells every listener what a write did to a user's note; call it inside the write's transaction, after the rows are written. */
export function announceNoteChange(ctx: SiteContext, change: NoteChange): void {
  for (const listener of NOTE_CHANGE_LISTENERS) listener(ctx, change);
}
