import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import { deleteGroupHookRow, findGroupHook, insertGroupHook, listGroupHooksOf, updateGroupHookRow, type GroupHookRow } from '../../db/tables/group-hooks.js';
import { notFound } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';
import { HOOK_DEFAULTS, mergeHookInput, type ProjectHookInput } from './project-hooks.js';

/**
 * Group webhooks (ee, GitLab's ee/lib/api/group_hooks.rb): a project hook's fields owned by a
 * group; the projects of the group and of its subgroups fire them (fire.ts). Same defaults and
 * url rule as project hooks.
 */
export function listGroupHooks(db: Db, groupId: number, page: Page): Paged<GroupHookRow> {
  return listGroupHooksOf(db, groupId, page);
}

/** One hook of the group, or 404 `Group Hook` (also when it belongs to another group). */
export function getGroupHook(db: Db, groupId: number, hookId: number): GroupHookRow {
  const hook = findGroupHook(db, hookId);
  if (!hook || hook.group_id !== groupId) throw notFound('Group Hook');
  return hook;
}

export function createGroupHook(db: Db, groupId: number, input: ProjectHookInput): GroupHookRow {
  const values = mergeHookInput(HOOK_DEFAULTS, input);
  return inTransaction(db, () => getGroupHook(db, groupId, insertGroupHook(db, groupId, values, nowIso())));
}

export function updateGroupHook(db: Db, groupId: number, hookId: number, input: ProjectHookInput): GroupHookRow {
  return inTransaction(db, () => {
    const hook = getGroupHook(db, groupId, hookId);
    updateGroupHookRow(db, hook.id, mergeHookInput(hook, input), nowIso());
    return getGroupHook(db, groupId, hookId);
  });
}

export function deleteGroupHook(db: Db, groupId: number, hookId: number): void {
  inTransaction(db, () => deleteGroupHookRow(db, getGroupHook(db, groupId, hookId).id));
}
