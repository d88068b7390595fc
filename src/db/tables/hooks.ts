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
  'releases_events',
] as const;
export type HookFlag = (typeof HOOK_FLAGS)[number];

/** Who owns a hook: a project (table project_hooks) or, in ee, a group (group_hooks); both tables have the same columns but the owner's. */
export type HookOwner = 'project' | 'group';

/** The columns a write sets: url, token, the flags and enable_ssl_verification. */
export type HookValues = {
  url: string;
  token: string | null;
  enable_ssl_verification: number;
} & Record<HookFlag, number>;

/** A hook of a project (`project_id`) or of a group (`group_id`). */
export type HookRow<O extends HookOwner> = HookValues & { id: number; created_at: string; updated_at: string } & Record<`${O}_id`, number>;

const TABLES = { project: 'project_hooks', group: 'group_hooks' } as const;

const VALUE_COLUMNS = ['url', 'token', ...HOOK_FLAGS, 'enable_ssl_verification'] as const;

/** The owner's column of a hook row: project_id or group_id. */
export function ownerColumn<O extends HookOwner>(owner: O): `${O}_id` {
  return `${owner}_id`;
}

export function findHook<O extends HookOwner>(db: Db, owner: O, id: number): HookRow<O> | undefined {
  return prepare(db, `SELECT * FROM ${TABLES[owner]} WHERE id = ?`).get(id) as HookRow<O> | undefined;
}

export function listHooksOf<O extends HookOwner>(db: Db, owner: O, ownerId: number, page: Page): Paged<HookRow<O>> {
  return selectPage(db, '*', `FROM ${TABLES[owner]} WHERE ${ownerColumn(owner)} = ?`, 'id', [ownerId], page);
}

export function insertHook(db: Db, owner: HookOwner, ownerId: number, values: HookValues, now: string): number {
  const columns = [ownerColumn(owner), ...VALUE_COLUMNS, 'created_at', 'updated_at'];
  const sql = `INSERT INTO ${TABLES[owner]} (${columns.join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')})`;
  return Number(prepare(db, sql).run({ ...values, [ownerColumn(owner)]: ownerId, created_at: now, updated_at: now }).lastInsertRowid);
}

export function updateHookRow(db: Db, owner: HookOwner, id: number, values: HookValues, now: string): void {
  const sql = `UPDATE ${TABLES[owner]} SET ${VALUE_COLUMNS.map((column) => `${column} = @${column}`).join(', ')}, updated_at = @updated_at WHERE id = @id`;
  prepare(db, sql).run({ ...values, id, updated_at: now });
}

export function deleteHookRow(db: Db, owner: HookOwner, id: number): void {
  prepare(db, `DELETE FROM ${TABLES[owner]} WHERE id = ?`).run(id);
}

/** The project's hooks switched on for one flag; `flag` comes from the closed HOOK_FLAGS list, never from input. */
export function listProjectHooksWithFlag(db: Db, projectId: number, flag: HookFlag): HookRow<'project'>[] {
  return prepare(db, `SELECT * FROM project_hooks WHERE project_id = ? AND ${flag} = 1 ORDER BY id`).all(projectId) as HookRow<'project'>[];
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
