import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

/** What an internal id counts: issues and merge requests per project, milestones per project or group, epics per group. */
export type InternalIdUsage = 'issues' | 'merge_requests' | 'project_milestones' | 'group_milestones' | 'epics';

/**
 * The next iid of a scope, allocated in the caller's transaction: one upsert that bumps the
 * counter and returns it, so two creates never share an iid and a deleted row's iid is never
 * handed out again (MAX(iid) + 1 would reuse it).
 */
export function nextInternalId(db: Db, usage: InternalIdUsage, scopeId: number): number {
  return prepare(
    db,
    `INSERT INTO internal_ids (usage, scope_id, last_value) VALUES (?, ?, 1)
     ON CONFLICT (usage, scope_id) DO UPDATE SET last_value = last_value + 1
     RETURNING last_value`,
  )
    .pluck()
    .get(usage, scopeId) as number;
}
