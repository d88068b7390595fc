import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { selectPage, type Page, type Paged } from '../../db/page.js';
import { deleteEventsOfTargets } from '../../db/tables/events.js';
import { nextInternalId } from '../../db/tables/internal-ids.js';
import { clearMilestoneOfIssues } from '../../db/tables/issues.js';
import {
  deleteMilestoneRow,
  findMilestoneById,
  findMilestoneInScope,
  insertMilestone,
  MILESTONE_ORDER,
  milestonesQuery,
  milestoneTitleTaken,
  updateMilestoneRow,
  type MilestoneColumns,
  type MilestoneListFilters,
  type MilestoneRow,
  type MilestoneScope,
} from '../../db/tables/milestones.js';
import { namespacesByIds, projectFullPaths } from '../../db/tables/project-relations.js';
import { invalid, notFound, type FieldErrors } from '../../errors.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';
import type { Actor } from '../users/authentication.js';
import { announceMilestoneChange } from './changes.js';

/** Who owns a milestone: a project or a group; each numbers its milestones with its own iids. */
export type MilestoneOwner = { readonly projectId: number } | { readonly groupId: number };

export interface MilestoneInput {
  readonly title?: string;
  readonly description?: string;
  /** `YYYY-MM-DD`, or null to clear. */
  readonly due_date?: string | null;
  readonly start_date?: string | null;
  readonly state_event?: 'close' | 'activate';
}

const TITLE_MAX = 255;

const ownerScope = (owner: MilestoneOwner): MilestoneScope =>
  'projectId' in owner ? { projectIds: [owner.projectId], groupIds: [] } : { projectIds: [], groupIds: [owner.groupId] };

export function listMilestones(db: Db, scope: MilestoneScope, filters: MilestoneListFilters, page: Page): Paged<MilestoneRow> {
  const { fromWhere, params } = milestonesQuery(scope, filters);
  return selectPage<MilestoneRow>(db, '*', fromWhere, MILESTONE_ORDER, [params], page);
}

/** The full path of each milestone's project or group (its web_url), two queries for a page. */
export function milestoneOwnerPaths(db: Db, rows: readonly MilestoneRow[]): (row: MilestoneRow) => string {
  const projects = projectFullPaths(db, rows.flatMap((row) => (row.project_id === null ? [] : [row.project_id])));
  const groups = namespacesByIds(db, rows.flatMap((row) => (row.group_id === null ? [] : [row.group_id])));
  return (row) => (row.project_id !== null ? projects.get(row.project_id) : groups.get(row.group_id!)?.full_path) ?? '';
}

/** One milestone of the owner, or 404 (`404 Not found`, as GitLab's `milestones.find` answers). */
export function getMilestone(db: Db, owner: MilestoneOwner, id: number): MilestoneRow {
  const milestone = findMilestoneInScope(db, ownerScope(owner), id);
  if (!milestone) throw notFound();
  return milestone;
}

/** The columns a write sets, validated as GitLab's Milestone model does (title present, unique in its owner; start date not after due date). */
function milestoneColumns(db: Db, owner: MilestoneOwner, current: MilestoneRow | null, input: MilestoneInput): MilestoneColumns {
  const errors: FieldErrors = {};
  const columns: MilestoneColumns = {};
  if (input.title !== undefined) {
    const title = input.title.trim();
    if (!title) errors.title = ["can't be blank"];
    else if (title.length > TITLE_MAX) errors.title = [`is too long (maximum is ${TITLE_MAX} characters)`];
    else if (milestoneTitleTaken(db, owner, title, current?.id ?? null)) errors.title = ['has already been taken'];
    columns.title = title;
  }
  if (input.description !== undefined) columns.description = input.description;
  if (input.due_date !== undefined) columns.due_date = input.due_date;
  if (input.start_date !== undefined) columns.start_date = input.start_date;
  const due = columns.due_date !== undefined ? columns.due_date : (current?.due_date ?? null);
  const start = columns.start_date !== undefined ? columns.start_date : (current?.start_date ?? null);
  if (due !== null && start !== null && start > due) errors.due_date = ['must be greater than start date'];
  if (input.state_event) columns.state = input.state_event === 'close' ? 'closed' : 'active';
  if (Object.keys(errors).length) throw invalid(errors);
  return columns;
}

/** Creates a milestone with the owner's next iid. */
export function createMilestone(ctx: SiteContext, actor: Actor, owner: MilestoneOwner, input: MilestoneInput & { title: string }): MilestoneRow {
  return inTransaction(ctx.db, () => {
    const columns = milestoneColumns(ctx.db, owner, null, input);
    const now = nowIso();
    const id = insertMilestone(ctx.db, {
      project_id: 'projectId' in owner ? owner.projectId : null,
      group_id: 'groupId' in owner ? owner.groupId : null,
      iid: 'projectId' in owner ? nextInternalId(ctx.db, 'project_milestones', owner.projectId) : nextInternalId(ctx.db, 'group_milestones', owner.groupId),
      title: columns.title!,
      description: columns.description ?? null,
      state: 'active',
      due_date: columns.due_date ?? null,
      start_date: columns.start_date ?? null,
      created_at: now,
      updated_at: now,
    });
    const milestone = findMilestoneById(ctx.db, id)!;
    announceMilestoneChange(ctx, { action: 'created', actor: actor.user, milestone, previous: null });
    return milestone;
  });
}

/** Edits a milestone; `state_event` closes or activates it. */
export function updateMilestone(ctx: SiteContext, actor: Actor, owner: MilestoneOwner, milestone: MilestoneRow, input: MilestoneInput): MilestoneRow {
  return inTransaction(ctx.db, () => {
    const columns = milestoneColumns(ctx.db, owner, milestone, input);
    updateMilestoneRow(ctx.db, milestone.id, { ...columns, updated_at: nowIso() });
    const updated = findMilestoneById(ctx.db, milestone.id)!;
    const action = updated.state === milestone.state ? 'updated' : updated.state === 'closed' ? 'closed' : 'reopened';
    announceMilestoneChange(ctx, { action, actor: actor.user, milestone: updated, previous: milestone });
    return updated;
  });
}

/** Deletes a milestone: its issues lose it, its events go (GitLab: `dependent: :delete_all`). */
export function deleteMilestone(ctx: SiteContext, actor: Actor, milestone: MilestoneRow): void {
  inTransaction(ctx.db, () => {
    announceMilestoneChange(ctx, { action: 'deleted', actor: actor.user, milestone, previous: milestone });
    removeMilestoneRows(ctx.db, milestone.id);
  });
}

/** The rows of one milestone, in the caller's transaction: its issues cleared as captured writes, its events, the milestone. */
export function removeMilestoneRows(db: Db, milestoneId: number): void {
  clearMilestoneOfIssues(db, milestoneId);
  deleteEventsOfTargets(db, 'Milestone', [milestoneId]);
  deleteMilestoneRow(db, milestoneId);
}
