import type { EventRow } from '../db/tables/events.js';
import type { IssueRow } from '../db/tables/issues.js';
import type { NoteRow } from '../db/tables/notes.js';
import type { ProjectRow } from '../db/tables/projects.js';
import type { UserRow } from '../db/tables/users.js';
import { isoTime } from './column-values.js';
import { noteView } from './notes.js';
import { userBasic, type EntityContext } from './users.js';

/** What the event views read beside the rows, each loaded once for a page. */
export interface EventRelations {
  readonly users: ReadonlyMap<number, UserRow>;
  readonly projects: ReadonlyMap<number, ProjectRow>;
  readonly notes: ReadonlyMap<number, NoteRow>;
  readonly issues: ReadonlyMap<number, IssueRow>;
}

const NOTE_TYPES: ReadonlySet<string> = new Set(['Note', 'DiscussionNote', 'DiffNote']);

/** GitLab's action_name: what the activity list says the author did (Event#action_name). */
function actionName(row: EventRow, relations: EventRelations): string {
  switch (row.action) {
    case 'pushed': {
      const action = row.push_data === null ? 'pushed' : (JSON.parse(row.push_data) as { action: string }).action;
      return action === 'created' ? 'pushed new' : action === 'removed' ? 'deleted' : 'pushed to';
    }
    case 'closed':
      return 'closed';
    case 'merged':
      return 'accepted';
    case 'joined':
    case 'left':
    case 'destroyed':
    case 'approved':
      return row.action;
    case 'expired':
      return 'removed due to membership expiration from';
    case 'commented':
      return 'commented on';
    case 'created':
      if (row.target_type === 'WikiPage') return 'created';
      if (row.target_type === null) return relations.projects.get(row.project_id ?? 0)?.import_url ? 'imported' : 'created';
      return 'opened';
    case 'updated':
      return row.target_type === 'WikiPage' ? 'updated' : 'opened';
    case 'reopened':
      // GitLab has no name of its own for a reopen: its list says "opened" again.
      return 'opened';
  }
}

/** The target's title as it is now where the page loaded the target (issues, comments on issues), else as recorded. */
function targetTitle(row: EventRow, relations: EventRelations): string | null {
  if (row.target_id === null) return row.target_title;
  if (row.target_type === 'Issue') return relations.issues.get(row.target_id)?.title ?? row.target_title;
  if (row.target_type !== null && NOTE_TYPES.has(row.target_type)) {
    const note = relations.notes.get(row.target_id);
    if (note?.noteable_type === 'Issue' && note.noteable_id !== null) return relations.issues.get(note.noteable_id)?.title ?? row.target_title;
  }
  return row.target_title;
}

/** GitLab's Note entity, as the event of a comment embeds it. */
function eventNote(note: NoteRow, relations: EventRelations, ctx: EntityContext) {
  const noteable = note.noteable_type === 'Issue' && note.noteable_id !== null ? relations.issues.get(note.noteable_id) : undefined;
  return noteView(note, { users: relations.users, noteableIid: noteable?.iid ?? null }, ctx);
}

/** GitLab's Event entity: `note` on comments, `push_data` on pushes, `author` while the author exists. */
export function event(row: EventRow, relations: EventRelations, ctx: EntityContext) {
  const author = relations.users.get(row.author_id);
  const note = row.target_type !== null && NOTE_TYPES.has(row.target_type) && row.target_id !== null ? relations.notes.get(row.target_id) : undefined;
  return {
    id: row.id,
    title: null,
    project_id: row.project_id,
    action_name: actionName(row, relations),
    target_id: row.target_id,
    target_iid: row.target_iid,
    target_type: row.target_type,
    author_id: row.author_id,
    target_title: targetTitle(row, relations),
    created_at: isoTime(row.created_at),
    ...(note ? { note: eventNote(note, relations, ctx) } : {}),
    ...(author ? { author: userBasic(author, ctx) } : {}),
    ...(row.action === 'pushed' && row.push_data !== null ? { push_data: JSON.parse(row.push_data) as unknown } : {}),
    author_username: author?.username ?? null,
  };
}
