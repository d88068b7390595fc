import type { LabelRow } from '../db/tables/labels.js';
import type { MilestoneRow } from '../db/tables/milestones.js';
import type { ResourceLabelEventRow } from '../db/tables/resource-label-events.js';
import type { ResourceMilestoneEventRow } from '../db/tables/resource-milestone-events.js';
import type { ResourceStateEventRow } from '../db/tables/resource-state-events.js';
import type { ResourceWeightEventRow } from '../db/tables/resource-weight-events.js';
import type { UserRow } from '../db/tables/users.js';
import { isoTime } from './column-values.js';
import { labelBasic } from './labels.js';
import { milestoneView } from './milestones.js';
import { userBasic, type EntityContext } from './users.js';

/** What the resource event views read beside the rows, loaded once for a page. */
export interface ResourceEventRelations {
  /** The issue or merge request the events are about: GitLab's resource_type and resource_id. */
  readonly resource: { readonly type: string; readonly id: number };
  readonly users: ReadonlyMap<number, UserRow>;
  readonly labels: ReadonlyMap<number, LabelRow>;
  readonly milestones: ReadonlyMap<number, MilestoneRow>;
  /** The full path of a milestone's project or group, for its web_url. */
  readonly milestonePath: (milestone: MilestoneRow) => string;
}

function common(row: { id: number; user_id: number | null; created_at: string }, rel: ResourceEventRelations, ctx: EntityContext) {
  const user = row.user_id === null ? undefined : rel.users.get(row.user_id);
  return {
    id: row.id,
    user: user ? userBasic(user, ctx) : null,
    created_at: isoTime(row.created_at),
    resource_type: rel.resource.type,
    resource_id: rel.resource.id,
  };
}

/** ResourceLabelEvent (ENT): a label added or removed; `label` is null once the label is gone. */
export function resourceLabelEventView(row: ResourceLabelEventRow, rel: ResourceEventRelations, ctx: EntityContext) {
  const label = row.label_id === null ? undefined : rel.labels.get(row.label_id);
  return { ...common(row, rel, ctx), label: label ? labelBasic(label) : null, action: row.action };
}

/** ResourceMilestoneEvent (ENT): a milestone set or taken off, and the issue's state then. */
export function resourceMilestoneEventView(row: ResourceMilestoneEventRow, rel: ResourceEventRelations, ctx: EntityContext) {
  const milestone = row.milestone_id === null ? undefined : rel.milestones.get(row.milestone_id);
  return { ...common(row, rel, ctx), milestone: milestone ? milestoneView(milestone, rel.milestonePath(milestone), ctx) : null, action: row.action, state: row.state };
}

/** ResourceStateEvent (ENT): the issue closed or reopened. */
export function resourceStateEventView(row: ResourceStateEventRow, rel: ResourceEventRelations, ctx: EntityContext) {
  return { ...common(row, rel, ctx), state: row.state };
}

/** ResourceWeightEvent (EE ENT): `id, user, created_at, issue_id, weight`, without the resource fields of the others. */
export function resourceWeightEventView(row: ResourceWeightEventRow, rel: ResourceEventRelations, ctx: EntityContext) {
  const user = row.user_id === null ? undefined : rel.users.get(row.user_id);
  return { id: row.id, user: user ? userBasic(user, ctx) : null, created_at: isoTime(row.created_at), issue_id: row.issue_id, weight: row.weight };
}
