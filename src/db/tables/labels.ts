import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

export interface LabelRow {
  id: number;
  project_id: number | null;
  group_id: number | null;
  title: string;
  color: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

export type LabelColumns = Partial<Pick<LabelRow, 'title' | 'color' | 'description' | 'updated_at'>>;

/** Where a label lives: a project, or a group (and, for reads, the groups above it). */
export type LabelScope = { readonly projectId: number | null; readonly groupIds: readonly number[] };

const IN_SCOPE = '(project_id = @project OR group_id IN (SELECT value FROM json_each(@groups)))';
const scopeParams = (scope: LabelScope) => ({ project: scope.projectId, groups: JSON.stringify(scope.groupIds) });

export function findLabelById(db: Db, id: number): LabelRow | undefined {
  return prepare(db, 'SELECT * FROM labels WHERE id = ?').get(id) as LabelRow | undefined;
}

/** A label of the scope by id; undefined when it belongs elsewhere. */
export function findLabelInScope(db: Db, scope: LabelScope, id: number): LabelRow | undefined {
  return prepare(db, `SELECT * FROM labels WHERE id = @id AND ${IN_SCOPE}`).get({ id, ...scopeParams(scope) }) as LabelRow | undefined;
}

/** The labels of the scope with these titles (exact, as GitLab's title lookups are), project labels first. */
export function findLabelsByTitles(db: Db, scope: LabelScope, titles: readonly string[]): LabelRow[] {
  if (!titles.length) return [];
  return prepare(
    db,
    `SELECT * FROM labels WHERE title IN (SELECT value FROM json_each(@titles)) AND ${IN_SCOPE} ORDER BY project_id IS NULL, id`,
  ).all({ titles: JSON.stringify(titles), ...scopeParams(scope) }) as LabelRow[];
}

/** The ids of every label with this title anywhere: filters of lists that span projects. */
export function labelIdsWithTitle(db: Db, title: string): number[] {
  return prepare(db, 'SELECT id FROM labels WHERE title = ?').pluck().all(title) as number[];
}

/** The fragment and parameters that list a scope's labels, for selectPage (ordered by title, as GitLab's LabelsFinder). */
export function labelsInScopeQuery(scope: LabelScope, search: string | undefined): { fromWhere: string; params: Record<string, unknown> } {
  const params: Record<string, unknown> = scopeParams(scope);
  let fromWhere = `FROM labels WHERE ${IN_SCOPE}`;
  if (search) {
    fromWhere += " AND (title LIKE @search ESCAPE '\\' OR description LIKE @search ESCAPE '\\')";
    params.search = `%${search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
  }
  return { fromWhere, params };
}

export function insertLabel(db: Db, label: Omit<LabelRow, 'id'>): number {
  return Number(
    prepare(db, 'INSERT INTO labels (project_id, group_id, title, color, description, created_at, updated_at) VALUES (@project_id, @group_id, @title, @color, @description, @created_at, @updated_at)').run(
      label,
    ).lastInsertRowid,
  );
}

export function updateLabelRow(db: Db, id: number, columns: LabelColumns): void {
  const names = Object.keys(columns).sort();
  if (!names.length) return;
  prepare(db, `UPDATE labels SET ${names.map((name) => `${name} = @${name}`).join(', ')} WHERE id = @id`).run({ ...columns, id });
}

export function deleteLabelRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM labels WHERE id = ?').run(id);
}

/** The project labels with this title in these projects: what promoting a label to their group merges. */
export function projectLabelsWithTitle(db: Db, projectIds: readonly number[], title: string): LabelRow[] {
  return prepare(db, 'SELECT * FROM labels WHERE title = ? AND project_id IN (SELECT value FROM json_each(?)) ORDER BY id').all(
    title,
    JSON.stringify(projectIds),
  ) as LabelRow[];
}

/** The ids of the labels of these groups (a deleted group takes them along). */
export function labelIdsOfGroups(db: Db, groupIds: readonly number[]): number[] {
  return prepare(db, 'SELECT id FROM labels WHERE group_id IN (SELECT value FROM json_each(?))').pluck().all(JSON.stringify(groupIds)) as number[];
}

/** The ids of a project's own labels. */
export function labelIdsOfProject(db: Db, projectId: number): number[] {
  return prepare(db, 'SELECT id FROM labels WHERE project_id = ?').pluck().all(projectId) as number[];
}

/** Labels by id, one query for a page of what points at them (resource label events). */
export function labelsByIds(db: Db, ids: readonly number[]): Map<number, LabelRow> {
  if (!ids.length) return new Map();
  const rows = prepare(db, 'SELECT * FROM labels WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify([...new Set(ids)])) as LabelRow[];
  return new Map(rows.map((row) => [row.id, row]));
}
