import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import {
  deleteSystemHookRow,
  findSystemHook,
  insertSystemHook,
  listSystemHookRows,
  SYSTEM_HOOK_FLAGS,
  updateSystemHookRow,
  type SystemHookFlag,
  type SystemHookRow,
  type SystemHookValues,
} from '../../db/tables/system-hooks.js';
import { notFound } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';
import { assertUnmodifiedSince } from '../unmodified-since.js';
import { validateHookUrl } from './hooks.js';
import type { HookContext } from './fire.js';

/** What a create or update may set; an absent field keeps its value (or its default on create); `url` is required on create only. */
export type SystemHookInput = {
  url?: string;
  name?: string;
  description?: string;
  token?: string;
  enable_ssl_verification?: boolean;
} & Partial<Record<SystemHookFlag, boolean>>;

/** GitLab's SystemHook defaults: repository updates on, pushes, tag pushes and merge requests off, TLS verified. */
const DEFAULTS: SystemHookValues = {
  url: '',
  name: null,
  description: null,
  token: null,
  push_events: 0,
  tag_push_events: 0,
  merge_requests_events: 0,
  repository_update_events: 1,
  enable_ssl_verification: 1,
};

export function listSystemHooks(db: Db, page: Page): Paged<SystemHookRow> {
  return listSystemHookRows(db, page);
}

/** One system hook, or 404 (GitLab's `SystemHook.find`: `404 Not found`). */
export function getSystemHook(db: Db, id: number): SystemHookRow {
  const hook = findSystemHook(db, id);
  if (!hook) throw notFound();
  return hook;
}

export function createSystemHook(db: Db, input: SystemHookInput & { url: string }): SystemHookRow {
  const values = mergeInput(DEFAULTS, input);
  return inTransaction(db, () => getSystemHook(db, insertSystemHook(db, values, nowIso())));
}

export function updateSystemHook(db: Db, id: number, input: SystemHookInput): SystemHookRow {
  return inTransaction(db, () => {
    const hook = getSystemHook(db, id);
    updateSystemHookRow(db, id, mergeInput(hook, input), nowIso());
    return getSystemHook(db, id);
  });
}

export function deleteSystemHook(db: Db, id: number, unmodifiedSince: number | null): void {
  inTransaction(db, () => {
    const hook = getSystemHook(db, id);
    assertUnmodifiedSince(unmodifiedSince, hook.updated_at);
    deleteSystemHookRow(db, id);
  });
}

/** The sample event GitLab's system hook test sends (system_hooks.rb mounts API::Hooks::Test with it). */
export const SYSTEM_HOOK_TEST_DATA = {
  event_name: 'project_create',
  name: 'Ruby',
  path: 'ruby',
  project_id: 1,
  owner_name: 'Someone',
  owner_email: 'example@gitlabhq.com',
} as const;

/** Queues the sample event to one system hook (POST /hooks/:id) and answers it; 404 for an unknown hook. */
export function testSystemHook(ctx: HookContext, id: number): typeof SYSTEM_HOOK_TEST_DATA {
  const hook = getSystemHook(ctx.db, id);
  ctx.webhooks.enqueueSystem(ctx.db, [hook.id], SYSTEM_HOOK_TEST_DATA.event_name, JSON.stringify(SYSTEM_HOOK_TEST_DATA));
  return SYSTEM_HOOK_TEST_DATA;
}

/** A hook's values after a create or update: 400 on a bad url; an empty token clears it. */
function mergeInput(current: SystemHookValues, input: SystemHookInput): SystemHookValues {
  const values: SystemHookValues = {
    url: input.url !== undefined ? validateHookUrl(input.url) : current.url,
    name: input.name ?? current.name,
    description: input.description ?? current.description,
    token: input.token === undefined ? current.token : input.token === '' ? null : input.token,
    enable_ssl_verification: input.enable_ssl_verification === undefined ? current.enable_ssl_verification : input.enable_ssl_verification ? 1 : 0,
    push_events: current.push_events,
    tag_push_events: current.tag_push_events,
    merge_requests_events: current.merge_requests_events,
    repository_update_events: current.repository_update_events,
  };
  for (const flag of SYSTEM_HOOK_FLAGS) {
    const given = input[flag];
    if (given !== undefined) values[flag] = given ? 1 : 0;
  }
  return values;
}
