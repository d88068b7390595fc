import type { Db } from '../../db/connection.js';
import type { IssueRow } from '../../db/tables/issues.js';
import { updateIssueRow } from '../../db/tables/issues.js';
import type { ProjectRow } from '../../db/tables/projects.js';

/**
 * What notes, discussions, award emoji and system notes are written on: an issue now, a merge
 * request with the next issue of the tracker (it adds its kind here and a case to touchNoteable).
 * The route that names the noteable has already checked that the caller may read it.
 */
export interface Noteable {
  readonly type: 'Issue';
  readonly id: number;
  readonly iid: number;
  readonly title: string;
  readonly author_id: number;
  readonly discussion_locked: number | null;
  readonly project: ProjectRow;
}

/** An issue of its project as a noteable. */
export function issueNoteable(project: ProjectRow, issue: IssueRow): Noteable {
  return { type: 'Issue', id: issue.id, iid: issue.iid, title: issue.title, author_id: issue.author_id, discussion_locked: issue.discussion_locked, project };
}

/**
 * Moves the noteable's updated_at, as a user's comment does in GitLab (Note `belongs_to :noteable,
 * touch: true`); system notes leave it alone (they are written with `no_touching`).
 */
export function touchNoteable(db: Db, noteable: Noteable, at: string): void {
  switch (noteable.type) {
    case 'Issue':
      updateIssueRow(db, noteable.id, { updated_at: at });
      return;
  }
}
