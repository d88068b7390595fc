import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

/** The event flags of a hook, one per event kind (SPEC: Events). */
export const HOOK_FLAGS = [
  'push_events',
  'tag_push_events',
  'issues_events',
  'confidential_issues_events',
  'merge_requests_events',
  'note_events',
  'job_events',
  'pipeline_events',
  'wiki_page_events',
] as const;
export type HookFlag = (typeof HOOK_FLAGS)[number];

export type ProjectHookRow = {
  id: number;
  project_id: number;
  url: string;
  token: string | null;
  enable_ssl_verification: number;
  created_at: string;
  updated_at: string;
} & Record<HookFlag, number>;

/** The columns a write sets: url, token, the flags and enable_ssl_verification. */
export type ProjectHookValues = Omit<ProjectHookRow, 'id' | 'project_id' | 'created_at' | 'updated_at'>;

const VALUE_COLUMNS = ['url', 'token', ...HOOK_FLAGS, 'enable_ssl_verification'] as const;

export function findProjectHook(db: Db, id: number): ProjectHookRow | undefined {
  return prepare(db, 'SELECT * FROM project_hooks WHERE id = ?').get(id) as ProjectHookRow | undefined;
}

export function listProjectHooksOf(db: Db, projectId: number, page: Page): Paged<ProjectHookRow> {
  return selectPage(db, '*', 'FROM project_hooks WHERE project_id = ?', 'id', [projectId], page);
}

/** The project's hooks switched on for one flag; `flag` comes from the closed HOOK_FLAGS list, never from input. */
export function listProjectHooksWithFlag(db: Db, projectId: number, flag: HookFlag): ProjectHookRow[] {
  return prepare(db, `SELECT * FROM project_hooks WHERE project_id = ? AND ${flag} = 1 ORDER BY id`).all(projectId) as ProjectHookRow[];
}

export function insertProjectHook(db: Db, projectId: number, values: ProjectHookValues, now: string): number {
  const columns = ['project_id', ...VALUE_COLUMNS, 'created_at', 'updated_at'];
  const sql = `INSERT INTO project_hooks (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})`;
  return Number(prepare(db, sql).run({ ...values, project_id: projectId, created_at: now, updated_at: now }).lastInsertRowid);
}

export function updateProjectHookRow(db: Db, id: number, values: ProjectHookValues, now: string): void {
  const sql = `UPDATE project_hooks SET ${VALUE_COLUMNS.map((column) => `${column} = @${column}`).join(', ')}, updated_at = @updated_at WHERE id = @id`;
  prepare(db, sql).run({ ...values, id, updated_at: now });
}

export function deleteProjectHookRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM project_hooks WHERE id = ?').run(id);
}
