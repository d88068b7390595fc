import type { NoteRow } from '../db/tables/notes.js';
import type { UserRow } from '../db/tables/users.js';
import { flag, isoTime } from './column-values.js';
import { userOf } from './issuables.js';
import type { EntityContext } from './users.js';

/** What the note views read beside the rows: the authors and resolvers of a page, and the noteable's iid. */
export interface NoteRelations {
  readonly users: ReadonlyMap<number, UserRow>;
  /** Issues and merge requests have one; GitLab shows null for anything else. */
  readonly noteableIid: number | null;
}

/**
 * Note (ENT Note, GitLab 13.x): a diff note adds its position; a resolvable note adds whether it
 * is resolved, by whom and when. Notes have no attachments here and are never confidential.
 */
export function noteView(row: NoteRow, rel: NoteRelations, ctx: EntityContext) {
  return {
    id: row.id,
    type: row.type,
    body: row.body,
    attachment: null,
    author: userOf(row.author_id, rel, ctx),
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
    system: flag(row.system),
    noteable_id: row.noteable_id,
    noteable_type: row.noteable_type,
    ...(row.type === 'DiffNote' ? { position: row.position === null ? null : (JSON.parse(row.position) as unknown) } : {}),
    resolvable: flag(row.resolvable),
    ...(row.resolvable ? { resolved: row.resolved_at !== null, resolved_by: userOf(row.resolved_by_id, rel, ctx), resolved_at: isoTime(row.resolved_at) } : {}),
    confidential: false,
    noteable_iid: rel.noteableIid,
    commands_changes: {},
  };
}

/** Discussion (ENT Discussion): its 40-hex id, whether it is a single unanswered note, and its notes. */
export function discussionView(id: string, individualNote: boolean, notes: readonly NoteRow[], rel: NoteRelations, ctx: EntityContext) {
  return { id, individual_note: individualNote, notes: notes.map((note) => noteView(note, rel, ctx)) };
}

/**
 * CommitNote (ENT CommitNote): a comment on a commit; a diff note shows its file, its line (the
 * new line, else the old one) and which side (`new` or `old`), as GitLab's diff_line does.
 */
export function commitNoteView(row: NoteRow, rel: NoteRelations, ctx: EntityContext) {
  const position = row.type === 'DiffNote' && row.position !== null ? (JSON.parse(row.position) as { new_path?: string; new_line?: number | null; old_line?: number | null }) : null;
  const line = position ? (position.new_line ?? position.old_line ?? null) : null;
  return {
    note: row.body,
    path: position?.new_path ?? null,
    line,
    line_type: position ? (position.new_line != null ? 'new' : 'old') : null,
    author: userOf(row.author_id, rel, ctx),
    created_at: isoTime(row.created_at),
  };
}
