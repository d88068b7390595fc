import type { Db } from '../../db/connection.js';
import type { MergeRequestRow } from '../../db/tables/merge-requests.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import type { UserRow } from '../../db/tables/users.js';
import { participantsOf, takesPart, type Participable } from '../issuables/participants.js';
import { userCanReadMergeRequest } from '../permissions.js';

const participable = (mergeRequest: MergeRequestRow): Participable => ({ type: 'MergeRequest', row: mergeRequest, assigneeIds: mergeRequest.assignee_id === null ? [] : [mergeRequest.assignee_id] });

/** Whether the user takes part in the merge request. */
export const isMergeRequestParticipant = (db: Db, user: UserRow, mergeRequest: MergeRequestRow): boolean => takesPart(db, user, participable(mergeRequest));

/** The participants of a merge request: only users who may read it. */
export function mergeRequestParticipants(db: Db, project: ProjectRow, mergeRequest: MergeRequestRow): UserRow[] {
  return participantsOf(db, participable(mergeRequest), (user) => userCanReadMergeRequest(db, user, project));
}
