import { inTransaction } from '../../db/connection.js';
import { nextInternalId } from '../../db/tables/internal-ids.js';
import { moveIssuesToMilestone } from '../../db/tables/issues.js';
import { findMilestoneById, insertMilestone, milestoneTitleTaken, projectMilestonesWithTitle, type MilestoneRow } from '../../db/tables/milestones.js';
import type { NamespaceRow } from '../../db/tables/namespaces.js';
import { badRequest } from '../../errors.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';
import type { Actor } from '../users/authentication.js';
import { announceMilestoneChange } from './changes.js';
import { removeMilestoneRows } from './milestones.js';
import { projectIdsInGroupTree } from './scopes.js';

/**
 * Promotes a project milestone to its group (GitLab's Milestones::PromoteService): a new group
 * milestone copies it (title, description, dates, state) with the group's next iid, every
 * milestone of that title in the group's projects hands its issues over to it, and those project
 * milestones go. 400 when the group already has a milestone of that title.
 */
export function promoteMilestone(ctx: SiteContext, actor: Actor, milestone: MilestoneRow, group: NamespaceRow): MilestoneRow {
  return inTransaction(ctx.db, () => {
    if (milestoneTitleTaken(ctx.db, { groupId: group.id }, milestone.title, null)) {
      throw badRequest('Promotion failed - title has already been taken');
    }
    const now = nowIso();
    const id = insertMilestone(ctx.db, {
      project_id: null,
      group_id: group.id,
      iid: nextInternalId(ctx.db, 'group_milestones', group.id),
      title: milestone.title,
      description: milestone.description,
      state: milestone.state,
      due_date: milestone.due_date,
      start_date: milestone.start_date,
      created_at: now,
      updated_at: now,
    });
    const promoted = findMilestoneById(ctx.db, id)!;
    announceMilestoneChange(ctx, { action: 'created', actor: actor.user, milestone: promoted, previous: null });
    for (const merged of projectMilestonesWithTitle(ctx.db, projectIdsInGroupTree(ctx.db, group), milestone.title)) {
      moveIssuesToMilestone(ctx.db, merged.id, id);
      announceMilestoneChange(ctx, { action: 'deleted', actor: actor.user, milestone: merged, previous: merged });
      removeMilestoneRows(ctx.db, merged.id);
    }
    return promoted;
  });
}
