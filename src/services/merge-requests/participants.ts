import type { Db } from '../../db/connection.js';
import type { MergeRequestRow } from '../../db/tables/merge-requests.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import type { UserRow } from '../../db/tables/users.js';
import { participantsOf, type Participable } from '../issuables/participants.js';
import { userCanReadMergeRequest } from '../permissions.js';

/** A merge request as participation and subscriptions read it: its one assignee, if any. */
export const mergeRequestParticipable = (mergeRequest: MergeRequestRow): Participable => ({ type: 'MergeRequest', row: mergeRequest, assigneeIds: mergeRequest.assignee_id === null ? [] : [mergeRequest.assignee_id] });

/** The participants of a merge request: only users who may read it. */
export function mergeRequestParticipants(db: Db, project: ProjectRow, mergeRequest: MergeRequestRow): UserRow[] {
  return participantsOf(db, mergeRequestParticipable(mergeRequest), (user) => userCanReadMergeRequest(db, user, project));
}
