import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

export interface MilestoneRow {
  id: number;
  project_id: number | null;
  group_id: number | null;
  iid: number;
  title: string;
  description: string | null;
  state: 'active' | 'closed';
  due_date: string | null;
  start_date: string | null;
  created_at: string;
  updated_at: string;
}

export type MilestoneColumns = Partial<Omit<MilestoneRow, 'id'>>;

/** Where milestones are read: a project's own and those of groups (its group and the groups above, or a group's). */
export type MilestoneScope = { readonly projectIds: readonly number[]; readonly groupIds: readonly number[] };

const IN_SCOPE = '(project_id IN (SELECT value FROM json_each(@projects)) OR group_id IN (SELECT value FROM json_each(@groups)))';
const scopeParams = (scope: MilestoneScope) => ({ projects: JSON.stringify(scope.projectIds), groups: JSON.stringify(scope.groupIds) });

export function findMilestoneById(db: Db, id: number): MilestoneRow | undefined {
  return prepare(db, 'SELECT * FROM milestones WHERE id = ?').get(id) as MilestoneRow | undefined;
}

export function milestonesByIds(db: Db, ids: readonly number[]): Map<number, MilestoneRow> {
  if (!ids.length) return new Map();
  const rows = prepare(db, 'SELECT * FROM milestones WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(ids)) as MilestoneRow[];
  return new Map(rows.map((row) => [row.id, row]));
}

/** A milestone of the scope by id; undefined when it belongs elsewhere. */
export function findMilestoneInScope(db: Db, scope: MilestoneScope, id: number): MilestoneRow | undefined {
  return prepare(db, `SELECT * FROM milestones WHERE id = @id AND ${IN_SCOPE}`).get({ id, ...scopeParams(scope) }) as MilestoneRow | undefined;
}

/** The ids of the scope's milestones with this title (a title filter matches project and group milestones alike). */
export function milestoneIdsWithTitle(db: Db, scope: MilestoneScope, title: string): number[] {
  return prepare(db, `SELECT id FROM milestones WHERE title = @title AND ${IN_SCOPE}`).pluck().all({ title, ...scopeParams(scope) }) as number[];
}

/** The ids of every milestone with this title anywhere: filters of lists that span projects. */
export function milestoneIdsWithTitleAnywhere(db: Db, title: string): number[] {
  return prepare(db, 'SELECT id FROM milestones WHERE title = ?').pluck().all(title) as number[];
}

export interface MilestoneListFilters {
  readonly state?: 'active' | 'closed';
  readonly iids?: readonly number[];
  readonly title?: string;
  readonly search?: string;
  readonly updatedAfter?: string;
  readonly updatedBefore?: string;
}

/** The fragment and parameters that list a scope's milestones for selectPage. */
export function milestonesQuery(scope: MilestoneScope, filters: MilestoneListFilters): { fromWhere: string; params: Record<string, unknown> } {
  const where = [IN_SCOPE];
  const params: Record<string, unknown> = scopeParams(scope);
  if (filters.state) {
    where.push('state = @state');
    params.state = filters.state;
  }
  if (filters.iids) {
    where.push('iid IN (SELECT value FROM json_each(@iids))');
    params.iids = JSON.stringify(filters.iids);
  }
  if (filters.title !== undefined) {
    where.push('title = @title');
    params.title = filters.title;
  }
  if (filters.search) {
    where.push("(title LIKE @search ESCAPE '\\' OR description LIKE @search ESCAPE '\\')");
    params.search = `%${filters.search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
  }
  if (filters.updatedAfter) {
    where.push('updated_at >= @updated_after');
    params.updated_after = filters.updatedAfter;
  }
  if (filters.updatedBefore) {
    where.push('updated_at <= @updated_before');
    params.updated_before = filters.updatedBefore;
  }
  return { fromWhere: `FROM milestones WHERE ${where.join(' AND ')}`, params };
}

/** GitLab's milestone order: due date first (none last), then title. */
export const MILESTONE_ORDER = 'due_date ASC NULLS LAST, title ASC, id ASC';

export function milestoneTitleTaken(db: Db, owner: { projectId: number } | { groupId: number }, title: string, exceptId: number | null): boolean {
  const column = 'projectId' in owner ? 'project_id' : 'group_id';
  const ownerId = 'projectId' in owner ? owner.projectId : owner.groupId;
  return prepare(db, `SELECT 1 FROM milestones WHERE ${column} = ? AND title = ? AND id IS NOT ?`).get(ownerId, title, exceptId) !== undefined;
}

export function insertMilestone(db: Db, columns: Omit<MilestoneRow, 'id'>): number {
  const names = Object.keys(columns).sort();
  return Number(prepare(db, `INSERT INTO milestones (${names.join(', ')}) VALUES (${names.map((name) => `@${name}`).join(', ')})`).run(columns).lastInsertRowid);
}

export function updateMilestoneRow(db: Db, id: number, columns: MilestoneColumns): void {
  const names = Object.keys(columns).sort();
  if (!names.length) return;
  prepare(db, `UPDATE milestones SET ${names.map((name) => `${name} = @${name}`).join(', ')} WHERE id = @id`).run({ ...columns, id });
}

export function deleteMilestoneRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM milestones WHERE id = ?').run(id);
}

/** The milestones with this title of these projects: what promoting a milestone to their group merges. */
export function projectMilestonesWithTitle(db: Db, projectIds: readonly number[], title: string): MilestoneRow[] {
  return prepare(db, 'SELECT * FROM milestones WHERE title = ? AND project_id IN (SELECT value FROM json_each(?)) ORDER BY id').all(
    title,
    JSON.stringify(projectIds),
  ) as MilestoneRow[];
}
