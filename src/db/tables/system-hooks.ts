import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

/** The event flags of a system hook; the other system events reach every system hook. */
export const SYSTEM_HOOK_FLAGS = ['push_events', 'tag_push_events', 'merge_requests_events', 'repository_update_events'] as const;
export type SystemHookFlag = (typeof SYSTEM_HOOK_FLAGS)[number];

/** The columns a write sets. */
export type SystemHookValues = {
  url: string;
  name: string | null;
  description: string | null;
  token: string | null;
  enable_ssl_verification: number;
} & Record<SystemHookFlag, number>;

export type SystemHookRow = SystemHookValues & { id: number; created_at: string; updated_at: string };

const VALUE_COLUMNS = ['url', 'name', 'description', 'token', ...SYSTEM_HOOK_FLAGS, 'enable_ssl_verification'] as const;

export function findSystemHook(db: Db, id: number): SystemHookRow | undefined {
  return prepare(db, 'SELECT * FROM system_hooks WHERE id = ?').get(id) as SystemHookRow | undefined;
}

export function listSystemHookRows(db: Db, page: Page): Paged<SystemHookRow> {
  return selectPage(db, '*', 'FROM system_hooks', 'id', [], page);
}

export function insertSystemHook(db: Db, values: SystemHookValues, now: string): number {
  const columns = [...VALUE_COLUMNS, 'created_at', 'updated_at'];
  const sql = `INSERT INTO system_hooks (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})`;
  return Number(prepare(db, sql).run({ ...values, created_at: now, updated_at: now }).lastInsertRowid);
}

export function updateSystemHookRow(db: Db, id: number, values: SystemHookValues, now: string): void {
  const sql = `UPDATE system_hooks SET ${VALUE_COLUMNS.map((column) => `${column} = @${column}`).join(', ')}, updated_at = @updated_at WHERE id = @id`;
  prepare(db, sql).run({ ...values, id, updated_at: now });
}

export function deleteSystemHookRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM system_hooks WHERE id = ?').run(id);
}

/** The ids of the system hooks switched on for `flag` (from the closed list, never input). */
export function systemHookIdsWithFlag(db: Db, flag: SystemHookFlag): number[] {
  return prepare(db, `SELECT id FROM system_hooks WHERE ${flag} = 1 ORDER BY id`).pluck().all() as number[];
}
