import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

/** A tag's release notes (GitLab 10.x's Release: one description per tag name). */
export interface ReleaseRow {
  id: number;
  project_id: number;
  tag: string;
  description: string;
  author_id: number | null;
  created_at: string;
  updated_at: string;
}

export function findReleaseRow(db: Db, projectId: number, tag: string): ReleaseRow | undefined {
  return prepare(db, 'SELECT * FROM releases WHERE project_id = ? AND tag = ?').get(projectId, tag) as ReleaseRow | undefined;
}

/** The releases of the named tags (one page of a tag list), one query. */
export function releaseRowsFor(db: Db, projectId: number, tags: readonly string[]): ReleaseRow[] {
  return prepare(db, 'SELECT * FROM releases WHERE project_id = ? AND tag IN (SELECT value FROM json_each(?))').all(projectId, JSON.stringify(tags)) as ReleaseRow[];
}

export function insertReleaseRow(db: Db, row: Omit<ReleaseRow, 'id'>): void {
  prepare(
    db,
    `INSERT INTO releases (project_id, tag, description, author_id, created_at, updated_at)
     VALUES (@project_id, @tag, @description, @author_id, @created_at, @updated_at)`,
  ).run(row);
}

export function updateReleaseDescription(db: Db, id: number, description: string, now: string): void {
  prepare(db, 'UPDATE releases SET description = ?, updated_at = ? WHERE id = ?').run(description, now, id);
}

/** A deleted tag takes its release notes with it, as GitLab's DeleteTagService does. */
export function deleteReleaseRow(db: Db, projectId: number, tag: string): void {
  prepare(db, 'DELETE FROM releases WHERE project_id = ? AND tag = ?').run(projectId, tag);
}
