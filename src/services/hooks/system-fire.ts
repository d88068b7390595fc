import { systemHookIdsWithFlag, type SystemHookFlag } from '../../db/tables/system-hooks.js';
import type { HookContext } from './fire.js';
import type { HookProject, HookUser } from './payloads.js';

/**
 * The system hook events code fires (the others are queued by triggers, db/system-hook-triggers.ts),
 * each sent only to the system hooks switched on for it.
 */
const SYSTEM_EVENT_FLAGS = {
  push: 'push_events',
  tag_push: 'tag_push_events',
  merge_request: 'merge_requests_events',
  repository_update: 'repository_update_events',
} as const satisfies Record<string, SystemHookFlag>;

export type FlaggedSystemEvent = keyof typeof SYSTEM_EVENT_FLAGS;

/**
 * Queues `payload` for every system hook switched on for `event`; inside the caller's transaction
 * when there is one, so a rolled-back change fires nothing. Nothing is queued on a secondary.
 */
export function fireSystemHooks(ctx: HookContext, event: FlaggedSystemEvent, payload: object): number {
  if (!ctx.webhooks.delivers) return 0;
  const ids = systemHookIdsWithFlag(ctx.db, SYSTEM_EVENT_FLAGS[event]);
  return ids.length ? ctx.webhooks.enqueueSystem(ctx.db, ids, event, JSON.stringify(payload)) : 0;
}

/** Gitlab::DataBuilder::Repository.update: one event per push, naming every ref it changed. */
export function repositoryUpdatePayload(user: HookUser, project: HookProject, changes: readonly { before: string; after: string; ref: string }[]) {
  return {
    event_name: 'repository_update',
    user_id: user.id,
    user_name: user.name,
    user_email: user.email,
    user_avatar: user.avatar_url,
    project_id: project.id,
    project: { ...project, homepage: project.web_url, url: project.git_ssh_url, ssh_url: project.git_ssh_url, http_url: project.git_http_url },
    changes: changes.map(({ before, after, ref }) => ({ before, after, ref })),
    refs: changes.map((change) => change.ref),
  };
}
