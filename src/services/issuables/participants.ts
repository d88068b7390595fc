import type { Db } from '../../db/connection.js';
import type { IssueRow } from '../../db/tables/issues.js';
import { userNotesOf } from '../../db/tables/notes.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { usersByIds } from '../../db/tables/project-relations.js';
import { usersByUsernames, type UserRow } from '../../db/tables/users.js';
import { userCanReadIssue } from '../permissions.js';
import { mentionedUsernames } from './mentions.js';

/** An issue or a merge request as participation reads it: the noteable, its row and its assignees. */
export interface Participable {
  readonly type: 'Issue' | 'MergeRequest';
  readonly row: { readonly id: number; readonly author_id: number; readonly title: string; readonly description: string | null };
  readonly assigneeIds: readonly number[];
}

/**
 * Who takes part, in GitLab's order: the author, the assignees, the users the title and
 * description mention, then each user note's author and the users that note mentions.
 */
function participantSources(db: Db, subject: Participable): { ids: number[]; usernames: string[] } {
  const { row } = subject;
  const ids = [row.author_id, ...subject.assigneeIds];
  const usernames = mentionedUsernames(`${row.title}\n\n${row.description ?? ''}`);
  for (const note of userNotesOf(db, subject.type, row.id)) {
    ids.push(note.author_id);
    usernames.push(...mentionedUsernames(note.body));
  }
  return { ids, usernames };
}

/** Whether the user takes part in the issue or merge request: without an explicit subscription, a participant follows it. */
export function takesPart(db: Db, user: UserRow, subject: Participable): boolean {
  if (subject.row.author_id === user.id || subject.assigneeIds.includes(user.id)) return true;
  const { ids, usernames } = participantSources(db, subject);
  return ids.includes(user.id) || usernames.some((name) => name.toLowerCase() === user.username.toLowerCase());
}

/** The participants, each once, in order: only users `canRead` lets read the subject, as GitLab's Participable filters them. */
export function participantsOf(db: Db, subject: Participable, canRead: (user: UserRow) => boolean): UserRow[] {
  const { ids, usernames } = participantSources(db, subject);
  const byId = usersByIds(db, ids);
  const mentioned = new Map(usersByUsernames(db, usernames).map((user) => [user.username.toLowerCase(), user]));
  const ordered = [...ids.map((id) => byId.get(id)), ...usernames.map((name) => mentioned.get(name.toLowerCase()))];
  const seen = new Set<number>();
  const out: UserRow[] = [];
  for (const user of ordered) {
    if (!user || seen.has(user.id)) continue;
    seen.add(user.id);
    if (canRead(user)) out.push(user);
  }
  return out;
}

/** An issue as participation and subscriptions read it, with its assignees. */
export const issueParticipable = (issue: IssueRow, assigneeIds: readonly number[]): Participable => ({ type: 'Issue', row: issue, assigneeIds });

/** The participants of an issue: a confidential issue's are those who see it. */
export function issueParticipants(db: Db, project: ProjectRow, issue: IssueRow, assigneeIds: readonly number[]): UserRow[] {
  const ref = { author_id: issue.author_id, confidential: issue.confidential, assigneeIds };
  return participantsOf(db, issueParticipable(issue, assigneeIds), (user) => userCanReadIssue(db, user, project, ref));
}
