import type { Db } from '../../db/connection.js';
import type { IssueRow } from '../../db/tables/issues.js';
import { userNotesOf } from '../../db/tables/notes.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { usersByIds } from '../../db/tables/project-relations.js';
import { usersByUsernames, type UserRow } from '../../db/tables/users.js';
import { userCanReadIssue } from '../permissions.js';
import { mentionedUsernames } from './mentions.js';

/**
 * Who takes part in an issue, in GitLab's order: its author, its assignees, the users its title and
 * description mention, then each user note's author and the users that note mentions.
 */
function participantSources(db: Db, issue: IssueRow, assigneeIds: readonly number[]): { ids: number[]; usernames: string[] } {
  const ids = [issue.author_id, ...assigneeIds];
  const usernames = mentionedUsernames(`${issue.title}\n\n${issue.description ?? ''}`);
  for (const note of userNotesOf(db, 'Issue', issue.id)) {
    ids.push(note.author_id);
    usernames.push(...mentionedUsernames(note.body));
  }
  return { ids, usernames };
}

/** Whether the user takes part in the issue: without an explicit subscription, a participant follows it. */
export function isParticipant(db: Db, user: UserRow, issue: IssueRow, assigneeIds: readonly number[]): boolean {
  if (issue.author_id === user.id || assigneeIds.includes(user.id)) return true;
  const { ids, usernames } = participantSources(db, issue, assigneeIds);
  return ids.includes(user.id) || usernames.some((name) => name.toLowerCase() === user.username.toLowerCase());
}

/**
 * The participants of an issue, each once, in order: only users who may read it (a confidential
 * issue's participants are those who see it), as GitLab's Participable filters them.
 */
export function issueParticipants(db: Db, project: ProjectRow, issue: IssueRow, assigneeIds: readonly number[]): UserRow[] {
  const { ids, usernames } = participantSources(db, issue, assigneeIds);
  const byId = usersByIds(db, ids);
  const mentioned = new Map(usersByUsernames(db, usernames).map((user) => [user.username.toLowerCase(), user]));
  const ordered = [...ids.map((id) => byId.get(id)), ...usernames.map((name) => mentioned.get(name.toLowerCase()))];
  const seen = new Set<number>();
  const out: UserRow[] = [];
  const ref = { author_id: issue.author_id, confidential: issue.confidential, assigneeIds };
  for (const user of ordered) {
    if (!user || seen.has(user.id)) continue;
    seen.add(user.id);
    if (userCanReadIssue(db, user, project, ref)) out.push(user);
  }
  return out;
}
