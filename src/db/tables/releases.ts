import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

/** A tag's release: GitLab 10.x's release notes (tag, description), with GitLab 17's name, release time and commit. */
export interface ReleaseRow {
  id: number;
  project_id: number;
  tag: string;
  name: string | null;
  description: string;
  author_id: number | null;
  released_at: string;
  /** The commit the tag pointed at when the release was made; null for one made before it was recorded. */
  sha: string | null;
  created_at: string;
  updated_at: string;
}

export type ReleaseValues = Omit<ReleaseRow, 'id'>;

export function findReleaseRow(db: Db, projectId: number, tag: string): ReleaseRow | undefined {
  return prepare(db, 'SELECT * FROM releases WHERE project_id = ? AND tag = ?').get(projectId, tag) as ReleaseRow | undefined;
}

/** The releases of the named tags (one page of a tag list), one query. */
export function releaseRowsFor(db: Db, projectId: number, tags: readonly string[]): ReleaseRow[] {
  return prepare(db, 'SELECT * FROM releases WHERE project_id = ? AND tag IN (SELECT value FROM json_each(?))').all(projectId, JSON.stringify(tags)) as ReleaseRow[];
}

/** GitLab's ReleasesFinder orders: by release or creation time, ties by id in the same direction. */
export type ReleaseOrder = { readonly by: 'released_at' | 'created_at'; readonly sort: 'asc' | 'desc' };

/** One page of the project's releases; `by` and `sort` come from closed lists, never raw input. */
export function listReleaseRows(db: Db, projectId: number, order: ReleaseOrder, page: Page): Paged<ReleaseRow> {
  const direction = order.sort === 'asc' ? 'ASC' : 'DESC';
  return selectPage(db, '*', 'FROM releases WHERE project_id = ?', `${order.by} ${direction}, id ${direction}`, [projectId], page);
}

export function insertReleaseRow(db: Db, row: ReleaseValues): number {
  return Number(
    prepare(
      db,
      `INSERT INTO releases (project_id, tag, name, description, author_id, released_at, sha, created_at, updated_at)
       VALUES (@project_id, @tag, @name, @description, @author_id, @released_at, @sha, @created_at, @updated_at)`,
    ).run(row).lastInsertRowid,
  );
}

export function updateReleaseDescription(db: Db, id: number, description: string, now: string): void {
  prepare(db, 'UPDATE releases SET description = ?, updated_at = ? WHERE id = ?').run(description, now, id);
}

/** Sets the given columns of a release (name, description, released_at) and its updated_at. */
export function updateReleaseRow(db: Db, id: number, columns: Partial<Pick<ReleaseRow, 'name' | 'description' | 'released_at'>>, now: string): void {
  const names = (['name', 'description', 'released_at'] as const).filter((name) => columns[name] !== undefined);
  const sets = [...names.map((name) => `${name} = @${name}`), 'updated_at = @now'];
  prepare(db, `UPDATE releases SET ${sets.join(', ')} WHERE id = @id`).run({ ...columns, id, now });
}

export function deleteReleaseById(db: Db, id: number): void {
  prepare(db, 'DELETE FROM releases WHERE id = ?').run(id);
}

/** A deleted tag takes its release notes with it, as GitLab's DeleteTagService does. */
export function deleteReleaseRow(db: Db, projectId: number, tag: string): void {
  prepare(db, 'DELETE FROM releases WHERE project_id = ? AND tag = ?').run(projectId, tag);
}
