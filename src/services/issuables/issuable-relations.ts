import type { Db } from '../../db/connection.js';
import { voteCounts } from '../../db/tables/award-emoji.js';
import { labelsOfTargets } from '../../db/tables/label-links.js';
import { milestonesByIds } from '../../db/tables/milestones.js';
import { userNotesCounts } from '../../db/tables/notes.js';
import { namespacesByIds, projectFullPaths, usersByIds } from '../../db/tables/project-relations.js';
import type { IssuableRelations } from '../../entities/issuables.js';

/**
 * What the issue and merge request views read alike for a page of rows of `type`, one query per
 * kind whatever the page size: the users `userIds` names, labels, milestones, the paths of the
 * rows' projects (`projectIds`) and of the milestones' projects and groups, user note counts and
 * votes. The caller adds whom the caller follows.
 */
export function loadIssuableRelations(
  db: Db,
  type: 'Issue' | 'MergeRequest',
  rows: readonly { readonly id: number; readonly milestone_id: number | null }[],
  projectIds: readonly number[],
  userIds: readonly number[],
): Omit<IssuableRelations, 'subscribed'> {
  const ids = rows.map((row) => row.id);
  const milestones = milestonesByIds(db, [...new Set(rows.flatMap((row) => (row.milestone_id === null ? [] : [row.milestone_id])))]);
  const milestoneProjectIds = [...milestones.values()].flatMap((m) => (m.project_id === null ? [] : [m.project_id]));
  const groupIds = [...milestones.values()].flatMap((m) => (m.group_id === null ? [] : [m.group_id]));
  return {
    users: usersByIds(db, userIds),
    labels: labelsOfTargets(db, type, ids),
    milestones,
    projectPaths: projectFullPaths(db, [...projectIds, ...milestoneProjectIds]),
    groupPaths: new Map([...namespacesByIds(db, groupIds).values()].map((group) => [group.id, group.full_path])),
    userNotesCounts: userNotesCounts(db, type, ids),
    votes: voteCounts(db, type, ids),
  };
}
