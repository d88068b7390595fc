import type { MilestoneRow } from '../db/tables/milestones.js';
import { today } from '../storage/clock.js';
import { isoTime } from './column-values.js';
import type { EntityContext } from './users.js';

/**
 * Milestone (ENT Milestone): `project_id` for a project's, `group_id` for a group's. `ownerPath` is
 * the full path of its project or group, for `web_url` (GitLab 10.x routes).
 */
export function milestoneView(row: MilestoneRow, ownerPath: string, ctx: EntityContext) {
  return {
    id: row.id,
    iid: row.iid,
    ...(row.project_id !== null ? { project_id: row.project_id } : { group_id: row.group_id }),
    title: row.title,
    description: row.description,
    state: row.state,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
    due_date: row.due_date,
    start_date: row.start_date,
    expired: row.due_date !== null && row.due_date < today(),
    web_url: row.project_id !== null ? `${ctx.externalUrl}/${ownerPath}/milestones/${row.iid}` : `${ctx.externalUrl}/groups/${ownerPath}/-/milestones/${row.iid}`,
  };
}
