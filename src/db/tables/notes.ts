import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { countUpTo, selectPage, type Page, type Paged } from '../page.js';

export type NoteableType = 'Issue' | 'MergeRequest' | 'Epic' | 'Commit' | 'Snippet';

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

/** Notes by id, for a page's relations (an event list's comments); missing ids are left out. */
export function notesByIds(db: Db, ids: readonly number[]): Map<number, NoteRow> {
  if (!ids.length) return new Map();
  const rows = prepare(db, 'SELECT * FROM notes WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify([...new Set(ids)])) as NoteRow[];
  return new Map(rows.map((row) => [row.id, row]));
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

export type NewNote = Omit<NoteRow, 'id'>;

export function insertNote(db: Db, note: NewNote): number {
  return Number(
    prepare(
      db,
      `INSERT INTO notes (project_id, noteable_type, noteable_id, commit_id, author_id, body, system, discussion_id, type, resolvable, resolved_at, resolved_by_id, position, created_at, updated_at)
       VALUES (@project_id, @noteable_type, @noteable_id, @commit_id, @author_id, @body, @system, @discussion_id, @type, @resolvable, @resolved_at, @resolved_by_id, @position, @created_at, @updated_at)`,
    ).run(note).lastInsertRowid,
  );
}

/** One note of a noteable (a note id of another noteable is missing here). */
export function findNoteOf(db: Db, type: NoteableType, noteableId: number, noteId: number): NoteRow | undefined {
  return prepare(db, 'SELECT * FROM notes WHERE id = ? AND noteable_type = ? AND noteable_id = ?').get(noteId, type, noteableId) as NoteRow | undefined;
}

export function findNoteById(db: Db, id: number): NoteRow | undefined {
  return prepare(db, 'SELECT * FROM notes WHERE id = ?').get(id) as NoteRow | undefined;
}

export function updateNoteBody(db: Db, id: number, body: string, updatedAt: string): void {
  prepare(db, 'UPDATE notes SET body = ?, updated_at = ? WHERE id = ?').run(body, updatedAt, id);
}

/** Makes every note of a discussion a thread note (GitLab's convert_to_discussion!, when someone replies to a single note). */
export function makeDiscussionNotes(db: Db, discussionId: string): void {
  prepare(db, "UPDATE notes SET type = 'DiscussionNote' WHERE discussion_id = ? AND type IS NULL").run(discussionId);
}

export function deleteNoteRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM notes WHERE id = ?').run(id);
}

/** How a note list is ordered: GitLab's order_by (created_at or updated_at) and sort, the id breaking ties. */
export interface NoteOrder {
  readonly orderBy: 'created_at' | 'updated_at';
  readonly sort: 'asc' | 'desc';
}

/** A page of a noteable's notes, system notes included (index notes_noteable). */
export function notesPage(db: Db, type: NoteableType, noteableId: number, order: NoteOrder, page: Page): Paged<NoteRow> {
  const direction = order.sort === 'asc' ? 'ASC' : 'DESC';
  return selectPage<NoteRow>(db, '*', 'FROM notes WHERE noteable_type = ? AND noteable_id = ?', `${order.orderBy} ${direction}, id ${direction}`, [type, noteableId], page);
}

/** A page of a noteable's discussion ids, oldest discussion first (GitLab's discussion_ids_relation). */
export function discussionIdsPage(db: Db, type: NoteableType, noteableId: number, page: Page): Paged<string> {
  const fromWhere = 'FROM notes WHERE noteable_type = ? AND noteable_id = ?';
  const ids = prepare(db, `SELECT discussion_id ${fromWhere} GROUP BY discussion_id ORDER BY min(created_at), min(id) LIMIT ? OFFSET ?`)
    .pluck()
    .all(type, noteableId, page.perPage, page.offset) as string[];
  const total = countUpTo(db, `${fromWhere} GROUP BY discussion_id`, [type, noteableId]);
  return { rows: ids, total };
}

/**
 * The notes of these discussions of a noteable, oldest first, found by discussion (index
 * notes_discussion: the unary `+` keeps the planner off notes_noteable, which would walk every note
 * of a long-discussed issue); the noteable terms only check that each note is this noteable's.
 */
export function notesOfDiscussions(db: Db, type: NoteableType, noteableId: number, discussionIds: readonly string[]): NoteRow[] {
  if (!discussionIds.length) return [];
  return prepare(
    db,
    'SELECT * FROM notes WHERE discussion_id IN (SELECT value FROM json_each(?)) AND +noteable_type = ? AND +noteable_id = ? ORDER BY created_at, id',
  ).all(JSON.stringify(discussionIds), type, noteableId) as NoteRow[];
}

/** Marks a resolvable note resolved by a user, or unresolved (`by` null). */
export function setNoteResolved(db: Db, id: number, by: number | null, at: string): void {
  prepare(db, 'UPDATE notes SET resolved_at = ?, resolved_by_id = ?, updated_at = ? WHERE id = ?').run(by === null ? null : at, by, at, id);
}

/**
 * Notes on a commit (noteable_type 'Commit', no noteable id: GitLab keys them by project and
 * commit_id, index notes_project_commit). A commit has few notes, so ordering them costs a small sort.
 */
const COMMIT_NOTES = "FROM notes WHERE project_id = ? AND commit_id = ? AND noteable_type = 'Commit'";

/** A page of a commit's notes, oldest first (GitLab's `commit.notes.order(:created_at)`). */
export function commitNotesPage(db: Db, projectId: number, commitId: string, page: Page): Paged<NoteRow> {
  return selectPage<NoteRow>(db, '*', COMMIT_NOTES, 'created_at, id', [projectId, commitId], page);
}

/** One note of a commit; a note of anything else is missing here. */
export function findCommitNote(db: Db, projectId: number, commitId: string, noteId: number): NoteRow | undefined {
  return prepare(db, `SELECT * ${COMMIT_NOTES} AND id = ?`).get(projectId, commitId, noteId) as NoteRow | undefined;
}

/** A page of a commit's discussion ids, oldest discussion first. */
export function commitDiscussionIdsPage(db: Db, projectId: number, commitId: string, page: Page): Paged<string> {
  const ids = prepare(db, `SELECT discussion_id ${COMMIT_NOTES} GROUP BY discussion_id ORDER BY min(created_at), min(id) LIMIT ? OFFSET ?`)
    .pluck()
    .all(projectId, commitId, page.perPage, page.offset) as string[];
  return { rows: ids, total: countUpTo(db, `${COMMIT_NOTES} GROUP BY discussion_id`, [projectId, commitId]) };
}

/** The notes of these discussions of a commit, oldest first. */
export function notesOfCommitDiscussions(db: Db, projectId: number, commitId: string, discussionIds: readonly string[]): NoteRow[] {
  if (!discussionIds.length) return [];
  return prepare(db, `SELECT * ${COMMIT_NOTES} AND discussion_id IN (SELECT value FROM json_each(?)) ORDER BY created_at, id`).all(
    projectId,
    commitId,
    JSON.stringify(discussionIds),
  ) as NoteRow[];
}

/** Whether a noteable has a resolvable note not yet resolved (GitLab's discussions_to_be_resolved?); index notes_noteable. */
export function hasUnresolvedNotes(db: Db, noteableType: 'Issue' | 'MergeRequest', noteableId: number): boolean {
  return (
    prepare(db, 'SELECT 1 FROM notes WHERE noteable_type = ? AND noteable_id = ? AND resolvable = 1 AND resolved_at IS NULL LIMIT 1').get(noteableType, noteableId) !==
    undefined
  );
}
