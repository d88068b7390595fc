import type { Db } from '../../db/connection.js';
import type { EpicRow } from '../../db/tables/epics.js';
import { updateEpicRow } from '../../db/tables/epics.js';
import type { IssueRow } from '../../db/tables/issues.js';
import { updateIssueRow } from '../../db/tables/issues.js';
import { touchMergeRequest, type MergeRequestRow } from '../../db/tables/merge-requests.js';
import type { NamespaceRow } from '../../db/tables/namespaces.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { updateSnippetRow, type SnippetRow } from '../../db/tables/snippets.js';
import type { NoteHome } from '../permissions.js';

/** What every kind of noteable shows the note code. */
interface NoteableFields {
  readonly id: number;
  readonly iid: number;
  readonly title: string;
  readonly author_id: number;
  readonly discussion_locked: number | null;
}

/**
 * What notes, discussions, award emoji and system notes are written on: an issue of a project, an
 * epic of a group (issue 16), a merge request of its target project (issue 15), a project's snippet
 * (issue 26). The route that
 * names the noteable has already checked that the caller may read it.
 */
export type Noteable =
  | (NoteableFields & { readonly type: 'Issue' | 'MergeRequest'; readonly project: ProjectRow })
  | (NoteableFields & { readonly type: 'Epic'; readonly group: NamespaceRow })
  | (Omit<NoteableFields, 'iid'> & { readonly iid: null; readonly type: 'Snippet'; readonly project: ProjectRow });

/** An issue of its project as a noteable. */
export function issueNoteable(project: ProjectRow, issue: IssueRow) {
  return { type: 'Issue', id: issue.id, iid: issue.iid, title: issue.title, author_id: issue.author_id, discussion_locked: issue.discussion_locked, project } as const;
}

/** A merge request of its target project as a noteable. */
export function mergeRequestNoteable(project: ProjectRow, mergeRequest: MergeRequestRow): Noteable {
  const { id, iid, title, author_id, discussion_locked } = mergeRequest;
  return { type: 'MergeRequest', id, iid, title, author_id, discussion_locked, project };
}

/** An epic of its group as a noteable (epics have no discussion lock here). */
export function epicNoteable(group: NamespaceRow, epic: EpicRow): Noteable {
  return { type: 'Epic', id: epic.id, iid: epic.iid, title: epic.title, author_id: epic.author_id, discussion_locked: null, group };
}

/** A project snippet as a noteable: no iid, and no discussion lock (GitLab's snippets have none). */
export function snippetNoteable(project: ProjectRow, snippet: SnippetRow): Noteable {
  return { type: 'Snippet', id: snippet.id, iid: null, title: snippet.title, author_id: snippet.author_id, discussion_locked: null, project };
}

/** Where the noteable lives, as the permission rules read it. */
export const noteHomeOf = (noteable: Noteable): NoteHome => (noteable.type === 'Epic' ? { group: noteable.group } : { project: noteable.project });

/** The project a note of the noteable belongs to (notes.project_id); null for a group's epic. */
export const noteProjectIdOf = (noteable: Noteable): number | null => (noteable.type === 'Epic' ? null : noteable.project.id);

/**
 * Moves the noteable's updated_at, as a user's comment does in GitLab (Note `belongs_to :noteable,
 * touch: true`); system notes leave it alone (they are written with `no_touching`).
 */
export function touchNoteable(db: Db, noteable: Noteable, at: string): void {
  switch (noteable.type) {
    case 'Issue':
      updateIssueRow(db, noteable.id, { updated_at: at });
      return;
    case 'Epic':
      updateEpicRow(db, noteable.id, { updated_at: at });
      return;
    case 'MergeRequest':
      touchMergeRequest(db, noteable.id, at);
      return;
    case 'Snippet':
      updateSnippetRow(db, noteable.id, { updated_at: at });
      return;
  }
}
