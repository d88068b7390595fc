import type { Db } from '../../db/connection.js';
import type { MergeRequestRow } from '../../db/tables/merge-requests.js';
import { userNotesOf } from '../../db/tables/notes.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { usersByIds } from '../../db/tables/project-relations.js';
import { usersByUsernames, type UserRow } from '../../db/tables/users.js';
import { mentionedUsernames } from '../issuables/mentions.js';
import { userCanReadMergeRequest } from '../permissions.js';

/**
 * Who takes part in a merge request, in GitLab's order: its author, its assignee, the users its
 * title and description mention, then each user note's author and the users that note mentions.
 */
function participantSources(db: Db, mergeRequest: MergeRequestRow): { ids: number[]; usernames: string[] } {
  const ids = [mergeRequest.author_id, ...(mergeRequest.assignee_id === null ? [] : [mergeRequest.assignee_id])];
  const usernames = mentionedUsernames(`${mergeRequest.title}\n\n${mergeRequest.description ?? ''}`);
  for (const note of userNotesOf(db, 'MergeRequest', mergeRequest.id)) {
    ids.push(note.author_id);
    usernames.push(...mentionedUsernames(note.body));
  }
  return { ids, usernames };
}

/** Whether the user takes part in the merge request: without an explicit subscription, a participant follows it. */
export function isMergeRequestParticipant(db: Db, user: UserRow, mergeRequest: MergeRequestRow): boolean {
  if (mergeRequest.author_id === user.id || mergeRequest.assignee_id === user.id) return true;
  const { ids, usernames } = participantSources(db, mergeRequest);
  return ids.includes(user.id) || usernames.some((name) => name.toLowerCase() === user.username.toLowerCase());
}

/** The participants of a merge request, each once, in order: only users who may read it, as GitLab's Participable filters them. */
export function mergeRequestParticipants(db: Db, project: ProjectRow, mergeRequest: MergeRequestRow): UserRow[] {
  const { ids, usernames } = participantSources(db, mergeRequest);
  const byId = usersByIds(db, ids);
  const mentioned = new Map(usersByUsernames(db, usernames).map((user) => [user.username.toLowerCase(), user]));
  const ordered = [...ids.map((id) => byId.get(id)), ...usernames.map((name) => mentioned.get(name.toLowerCase()))];
  const seen = new Set<number>();
  const out: UserRow[] = [];
  for (const user of ordered) {
    if (!user || seen.has(user.id)) continue;
    seen.add(user.id);
    if (userCanReadMergeRequest(db, user, project)) out.push(user);
  }
  return out;
}
