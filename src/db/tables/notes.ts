import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

export type NoteableType = 'Issue' | 'MergeRequest' | 'Epic' | 'Commit';

export interface NoteRow {
  id: number;
  project_id: number | null;
  noteable_type: NoteableType;
  noteable_id: number | null;
  commit_id: string | null;
  author_id: number;
  body: string;
  system: number;
  discussion_id: string;
  type: 'DiscussionNote' | 'DiffNote' | null;
  resolvable: number;
  resolved_at: string | null;
  resolved_by_id: number | null;
  position: string | null;
  created_at: string;
  updated_at: string;
}

/** How many user (not system) notes each noteable has: GitLab's `user_notes_count`, one query for a page. */
export function userNotesCounts(db: Db, type: NoteableType, noteableIds: readonly number[]): Map<number, number> {
  if (!noteableIds.length) return new Map();
  const rows = prepare(
    db,
    `SELECT noteable_id AS id, count(*) AS count FROM notes
     WHERE noteable_type = ? AND noteable_id IN (SELECT value FROM json_each(?)) AND system = 0 GROUP BY noteable_id`,
  ).all(type, JSON.stringify(noteableIds)) as { id: number; count: number }[];
  return new Map(rows.map((row) => [row.id, row.count]));
}

/** The user notes of a noteable, oldest first: their authors and bodies make participants. */
export function userNotesOf(db: Db, type: NoteableType, noteableId: number): Pick<NoteRow, 'author_id' | 'body'>[] {
  return prepare(db, 'SELECT author_id, body FROM notes WHERE noteable_type = ? AND noteable_id = ? AND system = 0 ORDER BY created_at, id').all(
    type,
    noteableId,
  ) as Pick<NoteRow, 'author_id' | 'body'>[];
}

/** Every note of a noteable, system notes included, oldest first (a moved issue takes copies along). */
export function notesOf(db: Db, type: NoteableType, noteableId: number): NoteRow[] {
  return prepare(db, 'SELECT * FROM notes WHERE noteable_type = ? AND noteable_id = ? ORDER BY created_at, id').all(type, noteableId) as NoteRow[];
}

/** Inserts a copy of a note onto another noteable of another project, in another discussion; returns its id. */
export function insertNoteCopy(db: Db, note: NoteRow, target: { projectId: number; noteableId: number; discussionId: string }): number {
  const { id: _id, ...columns } = note;
  const row = { ...columns, project_id: target.projectId, noteable_id: target.noteableId, discussion_id: target.discussionId };
  const names = Object.keys(row).sort();
  return Number(prepare(db, `INSERT INTO notes (${names.join(', ')}) VALUES (${names.map((name) => `@${name}`).join(', ')})`).run(row).lastInsertRowid);
}

/** The ids of the notes on these noteables (their award emoji go with them). */
export function noteIdsOf(db: Db, type: NoteableType, noteableIds: readonly number[]): number[] {
  return prepare(db, 'SELECT id FROM notes WHERE noteable_type = ? AND noteable_id IN (SELECT value FROM json_each(?))').pluck().all(type, JSON.stringify(noteableIds)) as number[];
}

/** The ids of the notes a user wrote (index notes_author), for a hard user delete. */
export function noteIdsAuthoredBy(db: Db, userId: number): number[] {
  return prepare(db, 'SELECT id FROM notes WHERE author_id = ?').pluck().all(userId) as number[];
}

/** Hands the notes a user wrote to another (a deleted user's to the ghost user). */
export function moveNotesToAuthor(db: Db, fromUserId: number, toUserId: number): void {
  prepare(db, 'UPDATE notes SET author_id = ? WHERE author_id = ?').run(toUserId, fromUserId);
}

/** Deletes the notes on these noteables (notes do not cascade from their polymorphic noteable). */
export function deleteNotesOf(db: Db, type: NoteableType, noteableIds: readonly number[]): void {
  prepare(db, 'DELETE FROM notes WHERE noteable_type = ? AND noteable_id IN (SELECT value FROM json_each(?))').run(type, JSON.stringify(noteableIds));
}
