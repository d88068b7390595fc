import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

export interface LfsObjectRow {
  id: number;
  oid: string;
  size: number;
  created_at: string;
}

export function findLfsObject(db: Db, oid: string): LfsObjectRow | undefined {
  return prepare(db, 'SELECT * FROM lfs_objects WHERE oid = ?').get(oid) as LfsObjectRow | undefined;
}

export function findLfsObjectById(db: Db, id: number): LfsObjectRow | undefined {
  return prepare(db, 'SELECT * FROM lfs_objects WHERE id = ?').get(id) as LfsObjectRow | undefined;
}

/** The object row for `oid`, inserted when missing. */
export function ensureLfsObject(db: Db, oid: string, size: number, now: string): LfsObjectRow {
  prepare(db, 'INSERT INTO lfs_objects (oid, size, created_at) VALUES (?, ?, ?) ON CONFLICT (oid) DO NOTHING').run(oid, size, now);
  return findLfsObject(db, oid)!;
}

/** Links an object to a project; linking twice is a no-op. */
export function linkLfsObject(db: Db, lfsObjectId: number, projectId: number, now: string): void {
  prepare(
    db,
    'INSERT INTO lfs_objects_projects (lfs_object_id, project_id, created_at) VALUES (?, ?, ?) ON CONFLICT (lfs_object_id, project_id) DO NOTHING',
  ).run(lfsObjectId, projectId, now);
}

/** Which of `projectIds` the object is linked to (any of them is enough for a download). */
export function isLfsObjectLinked(db: Db, lfsObjectId: number, projectIds: readonly number[]): boolean {
  if (projectIds.length === 0) return false;
  const row = prepare(
    db,
    `SELECT 1 FROM lfs_objects_projects WHERE lfs_object_id = ? AND project_id IN (${projectIds.map(() => '?').join(', ')}) LIMIT 1`,
  ).get(lfsObjectId, ...projectIds);
  return row !== undefined;
}

/** Bytes of the LFS objects linked to the project (each object counted once). */
export function lfsObjectsSize(db: Db, projectId: number): number {
  const row = prepare(
    db,
    'SELECT COALESCE(SUM(o.size), 0) AS total FROM lfs_objects o JOIN lfs_objects_projects p ON p.lfs_object_id = o.id WHERE p.project_id = ?',
  ).get(projectId) as { total: number };
  return Number(row.total) || 0;
}
