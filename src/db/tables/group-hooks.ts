import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';
import { HOOK_FLAGS, type HookFlag, type ProjectHookValues } from './project-hooks.js';

/** A group webhook (ee): a project hook's columns, owned by a group. */
export type GroupHookRow = {
  id: number;
  group_id: number;
  url: string;
  token: string | null;
  enable_ssl_verification: number;
  created_at: string;
  updated_at: string;
} & Record<HookFlag, number>;

const VALUE_COLUMNS = ['url', 'token', ...HOOK_FLAGS, 'enable_ssl_verification'] as const;

export function findGroupHook(db: Db, id: number): GroupHookRow | undefined {
  return prepare(db, 'SELECT * FROM group_hooks WHERE id = ?').get(id) as GroupHookRow | undefined;
}

export function listGroupHooksOf(db: Db, groupId: number, page: Page): Paged<GroupHookRow> {
  return selectPage(db, '*', 'FROM group_hooks WHERE group_id = ?', 'id', [groupId], page);
}

/**
 * The ids of the hooks switched on for one flag of the project's group and every group above it
 * (a user's namespace has none): GitLab's project.group.hooks over self_and_ancestors. `flag`
 * comes from the closed HOOK_FLAGS list, never from input.
 */
export function groupHookIdsForProject(db: Db, projectId: number, flag: HookFlag): number[] {
  return prepare(
    db,
    `WITH RECURSIVE chain (id) AS (
       SELECT namespace_id FROM projects WHERE id = ?
       UNION SELECT n.parent_id FROM namespaces n JOIN chain ON n.id = chain.id WHERE n.parent_id IS NOT NULL
     )
     SELECT h.id FROM group_hooks h WHERE h.group_id IN (SELECT id FROM chain) AND h.${flag} = 1 ORDER BY h.id`,
  )
    .pluck()
    .all(projectId) as number[];
}

export function insertGroupHook(db: Db, groupId: number, values: ProjectHookValues, now: string): number {
  const columns = ['group_id', ...VALUE_COLUMNS, 'created_at', 'updated_at'];
  const sql = `INSERT INTO group_hooks (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})`;
  return Number(prepare(db, sql).run({ ...values, group_id: groupId, created_at: now, updated_at: now }).lastInsertRowid);
}

export function updateGroupHookRow(db: Db, id: number, values: ProjectHookValues, now: string): void {
  const sql = `UPDATE group_hooks SET ${VALUE_COLUMNS.map((column) => `${column} = @${column}`).join(', ')}, updated_at = @updated_at WHERE id = @id`;
  prepare(db, sql).run({ ...values, id, updated_at: now });
}

export function deleteGroupHookRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM group_hooks WHERE id = ?').run(id);
}
