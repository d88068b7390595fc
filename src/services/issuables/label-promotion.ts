import { moveListsToLabel } from '../../db/tables/board-lists.js';
import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { moveLabelLinks } from '../../db/tables/label-links.js';
import { moveLabelPriorities } from '../../db/tables/label-priorities.js';
import { findLabelById, findLabelsByTitles, insertLabel, projectLabelsWithTitle, type LabelRow } from '../../db/tables/labels.js';
import type { NamespaceRow } from '../../db/tables/namespaces.js';
import { moveSubscriptions } from '../../db/tables/subscriptions.js';
import { nowIso } from '../../storage/clock.js';
import { removeLabelRows } from './labels.js';
import { projectIdsInGroupTree } from './scopes.js';

/**
 * Promotes a project label to its group (GitLab's Labels::PromoteService): the group's label of
 * that title, made from this one when the group has none, takes the place of every project label
 * of that title in the group's projects and subgroups' projects: their issues, priorities and
 * subscriptions move to it and the project labels go. The caller checked that the project is in
 * `group` and may be promoted there.
 */
export function promoteLabel(db: Db, label: LabelRow, group: NamespaceRow): LabelRow {
  return inTransaction(db, () => {
    const existing = findLabelsByTitles(db, { projectId: null, groupIds: [group.id] }, [label.title])[0];
    const now = nowIso();
    const groupLabelId =
      existing?.id ??
      insertLabel(db, { project_id: null, group_id: group.id, title: label.title, color: label.color, description: label.description, created_at: now, updated_at: now });
    for (const projectLabel of projectLabelsWithTitle(db, projectIdsInGroupTree(db, group), label.title)) {
      moveLabelLinks(db, projectLabel.id, groupLabelId);
      moveLabelPriorities(db, projectLabel.id, groupLabelId);
      moveSubscriptions(db, 'Label', projectLabel.id, groupLabelId);
      moveListsToLabel(db, projectLabel.id, groupLabelId, now);
      removeLabelRows(db, projectLabel.id);
    }
    return findLabelById(db, groupLabelId)!;
  });
}
