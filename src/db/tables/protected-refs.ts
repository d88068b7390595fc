import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

export interface ProtectedBranchRow {
  id: number;
  project_id: number;
  name: string;
  push_access_level: number;
  merge_access_level: number;
  unprotect_access_level: number;
  created_at: string;
  updated_at: string;
}

export interface ProtectedTagRow {
  id: number;
  project_id: number;
  name: string;
  create_access_level: number;
  created_at: string;
  updated_at: string;
}

export function listProtectedBranchRows(db: Db, projectId: number, page: Page): Paged<ProtectedBranchRow> {
  return selectPage(db, '*', 'FROM protected_branches WHERE project_id = ?', 'name', [projectId], page);
}

/** Every protection of the project: a push checks each ref against all of them (a project has a handful). */
export function allProtectedBranchRows(db: Db, projectId: number): ProtectedBranchRow[] {
  return prepare(db, 'SELECT * FROM protected_branches WHERE project_id = ? ORDER BY name').all(projectId) as ProtectedBranchRow[];
}

export function findProtectedBranchRow(db: Db, projectId: number, name: string): ProtectedBranchRow | undefined {
  return prepare(db, 'SELECT * FROM protected_branches WHERE project_id = ? AND name = ?').get(projectId, name) as ProtectedBranchRow | undefined;
}

export function insertProtectedBranchRow(db: Db, row: Omit<ProtectedBranchRow, 'id'>): number {
  return Number(
    prepare(
      db,
      `INSERT INTO protected_branches (project_id, name, push_access_level, merge_access_level, unprotect_access_level, created_at, updated_at)
       VALUES (@project_id, @name, @push_access_level, @merge_access_level, @unprotect_access_level, @created_at, @updated_at)`,
    ).run(row).lastInsertRowid,
  );
}

export function deleteProtectedBranchRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM protected_branches WHERE id = ?').run(id);
}

export function listProtectedTagRows(db: Db, projectId: number, page: Page): Paged<ProtectedTagRow> {
  return selectPage(db, '*', 'FROM protected_tags WHERE project_id = ?', 'name', [projectId], page);
}

export function allProtectedTagRows(db: Db, projectId: number): ProtectedTagRow[] {
  return prepare(db, 'SELECT * FROM protected_tags WHERE project_id = ? ORDER BY name').all(projectId) as ProtectedTagRow[];
}

export function findProtectedTagRow(db: Db, projectId: number, name: string): ProtectedTagRow | undefined {
  return prepare(db, 'SELECT * FROM protected_tags WHERE project_id = ? AND name = ?').get(projectId, name) as ProtectedTagRow | undefined;
}

export function insertProtectedTagRow(db: Db, row: Omit<ProtectedTagRow, 'id'>): number {
  return Number(
    prepare(
      db,
      `INSERT INTO protected_tags (project_id, name, create_access_level, created_at, updated_at)
       VALUES (@project_id, @name, @create_access_level, @created_at, @updated_at)`,
    ).run(row).lastInsertRowid,
  );
}

export function deleteProtectedTagRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM protected_tags WHERE id = ?').run(id);
}
