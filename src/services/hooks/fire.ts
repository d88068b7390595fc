import type { Db } from '../../db/connection.js';
import { groupHookIdsForProject, listProjectHooksWithFlag } from '../../db/tables/hooks.js';
import { HOOK_EVENTS, type HookEvent } from './events.js';
import type { HookQueue } from './queue.js';

/** What firing needs of a site: its database and its queue (a SiteContext has both). */
export interface HookContext {
  readonly db: Db;
  readonly webhooks: HookQueue;
}

/**
 * Queues `payload` for every hook of the project switched on for `event` (SPEC: Events), and for
 * every such group hook (ee) of the project's group and the groups above it, and returns how many
 * deliveries were queued; it never waits for a receiver. Called inside the
 * transaction that made the change, the deliveries commit or roll back with it. On a secondary
 * nothing is queued: the primary delivers for every site.
 */
export function fireProjectHooks(ctx: HookContext, project: { readonly id: number }, event: HookEvent, payload: object): number {
  if (!ctx.webhooks.delivers) return 0;
  const flag = HOOK_EVENTS[event].flag;
  const hooks = listProjectHooksWithFlag(ctx.db, project.id, flag);
  const groupHookIds = groupHookIdsForProject(ctx.db, project.id, flag);
  if (hooks.length === 0 && groupHookIds.length === 0) return 0;
  return ctx.webhooks.enqueue(
    ctx.db,
    hooks.map((hook) => hook.id),
    event,
    JSON.stringify(payload),
    groupHookIds,
  );
}
