import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

export interface SnippetRow {
  id: number;
  title: string;
  description: string | null;
  author_id: number;
  /** Null for a personal snippet. */
  project_id: number | null;
  visibility_level: number;
  /** JSON array of the file paths on the default branch. */
  file_paths: string;
  repository_checksum: string | null;
  repository_updated_at: string | null;
  created_at: string;
  updated_at: string;
}

export type SnippetColumns = Partial<Omit<SnippetRow, 'id'>>;

export function findSnippetById(db: Db, id: number): SnippetRow | undefined {
  return prepare(db, 'SELECT * FROM snippets WHERE id = ?').get(id) as SnippetRow | undefined;
}

export function insertSnippet(db: Db, columns: SnippetColumns & Pick<SnippetRow, 'title' | 'author_id' | 'visibility_level' | 'created_at' | 'updated_at'>): number {
  const names = Object.keys(columns).sort();
  return Number(prepare(db, `INSERT INTO snippets (${names.join(', ')}) VALUES (${names.map((name) => `@${name}`).join(', ')})`).run(columns).lastInsertRowid);
}

export function updateSnippetRow(db: Db, id: number, columns: SnippetColumns): void {
  const names = Object.keys(columns).sort();
  if (!names.length) return;
  prepare(db, `UPDATE snippets SET ${names.map((name) => `${name} = @${name}`).join(', ')} WHERE id = @id`).run({ ...columns, id });
}

export function deleteSnippetRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM snippets WHERE id = ?').run(id);
}

/** The ids of a project's snippets (their repositories go with the project). */
export function snippetIdsOfProject(db: Db, projectId: number): number[] {
  return prepare(db, 'SELECT id FROM snippets WHERE project_id = ?').pluck().all(projectId) as number[];
}

/** What narrows a snippet list besides who may read it. */
export interface SnippetFilter {
  readonly authorId?: number;
  readonly projectId?: number;
  readonly personalOnly?: boolean;
  readonly publicOnly?: boolean;
  readonly createdAfter?: string;
  readonly createdBefore?: string;
}

/**
 * One page of snippets `s` (with their project `p` left-joined) matching `readable` (SQL from
 * services/permissions.ts, with its named parameters) and the filter, newest first as GitLab's
 * SnippetsFinder orders them.
 */
export function listSnippetRows(db: Db, readable: { sql: string; params: Record<string, unknown> }, filter: SnippetFilter, page: Page): Paged<SnippetRow> {
  const where = [`(${readable.sql})`];
  const params: Record<string, unknown> = { ...readable.params };
  if (filter.authorId !== undefined) (where.push('s.author_id = @filter_author'), (params.filter_author = filter.authorId));
  if (filter.projectId !== undefined) (where.push('s.project_id = @filter_project'), (params.filter_project = filter.projectId));
  if (filter.personalOnly) where.push('s.project_id IS NULL');
  if (filter.publicOnly) where.push('s.visibility_level = 20');
  if (filter.createdAfter !== undefined) (where.push('s.created_at > @created_after'), (params.created_after = filter.createdAfter));
  if (filter.createdBefore !== undefined) (where.push('s.created_at < @created_before'), (params.created_before = filter.createdBefore));
  const fromWhere = `FROM snippets s LEFT JOIN projects p ON p.id = s.project_id WHERE ${where.join(' AND ')}`;
  return selectPage<SnippetRow>(db, 's.*', fromWhere, 's.created_at DESC, s.id DESC', [params], page);
}

/** Sets the snippet's repository checksum (null: none on disk, for the fill job to recompute). */
export function setSnippetRepositoryChecksum(db: Db, id: number, checksum: string | null, at: string): void {
  prepare(db, 'UPDATE snippets SET repository_checksum = ?, repository_updated_at = ? WHERE id = ?').run(checksum, at, id);
}
