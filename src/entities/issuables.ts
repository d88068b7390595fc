import type { LabelRow } from '../db/tables/labels.js';
import type { MilestoneRow } from '../db/tables/milestones.js';
import type { UserRow } from '../db/tables/users.js';
import { isoTime } from './column-values.js';
import { milestoneView } from './milestones.js';
import { userBasic, type EntityContext } from './users.js';

/** What the issue and merge request views read alike beyond the row, preloaded for a whole page, one query per kind. */
export interface IssuableRelations {
  /** The users the views name (authors, assignees, closers...), by user id. */
  readonly users: ReadonlyMap<number, UserRow>;
  readonly labels: ReadonlyMap<number, readonly LabelRow[]>;
  readonly milestones: ReadonlyMap<number, MilestoneRow>;
  /** Full paths of the rows' projects (and of the projects of project milestones), and of the groups of group milestones, by id. */
  readonly projectPaths: ReadonlyMap<number, string>;
  readonly groupPaths: ReadonlyMap<number, string>;
  readonly userNotesCounts: ReadonlyMap<number, number>;
  readonly votes: ReadonlyMap<number, { readonly upvotes: number; readonly downvotes: number }>;
  /** The rows the caller follows; loaded for the single views only, as GitLab does. */
  readonly subscribed: ReadonlySet<number>;
}

/** The columns an issue and a merge request share, which their views open with. */
interface IssuableColumns {
  readonly id: number;
  readonly iid: number;
  readonly title: string;
  readonly description: string | null;
  readonly state: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly milestone_id: number | null;
}

/** The fields every issue and merge request view opens with, in GitLab's order: ids, the project, title, description, state and times. */
export function issuableHead<Row extends IssuableColumns>(row: Row, projectId: number) {
  return {
    id: row.id,
    iid: row.iid,
    project_id: projectId,
    title: row.title,
    description: row.description,
    state: row.state as Row['state'],
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}

/** The full path of the project a row belongs to; `what` names the row in the error when the service did not preload it. */
export function projectPathOf(projectId: number, rel: IssuableRelations, what: string): string {
  const path = rel.projectPaths.get(projectId);
  if (path === undefined) throw new Error(`${what}: project ${projectId} was not preloaded`);
  return path;
}

/** UserBasic of a preloaded user, null for none. */
export function userOf(id: number | null, rel: Pick<IssuableRelations, 'users'>, ctx: EntityContext) {
  if (id === null) return null;
  const user = rel.users.get(id);
  return user ? userBasic(user, ctx) : null;
}

/** The row's milestone with its project's or group's path, null for none. */
export function milestoneOf(row: IssuableColumns, rel: IssuableRelations, ctx: EntityContext) {
  const milestone = row.milestone_id === null ? undefined : rel.milestones.get(row.milestone_id);
  if (!milestone) return null;
  const ownerPath = milestone.project_id !== null ? rel.projectPaths.get(milestone.project_id) : rel.groupPaths.get(milestone.group_id!);
  return milestoneView(milestone, ownerPath ?? '', ctx);
}
