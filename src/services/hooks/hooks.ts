import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import {
  deleteHookRow,
  findHook,
  HOOK_FLAGS,
  insertHook,
  listHooksOf,
  ownerColumn,
  updateHookRow,
  type HookFlag,
  type HookOwner,
  type HookRow,
  type HookValues,
} from '../../db/tables/hooks.js';
import { invalid, notFound } from '../../errors.js';
import { assertUnmodifiedSince } from '../unmodified-since.js';
import { nowIso } from '../../storage/clock.js';

/** What a create or update may set; an absent field keeps its current value (or its default on create). */
export type HookInput = { url: string; token?: string; enable_ssl_verification?: boolean } & Partial<Record<HookFlag, boolean>>;

/** GITLAB-NOTES 2.2: push_events on, every other kind off, TLS verified. */
const HOOK_DEFAULTS: HookValues = {
  url: '',
  token: null,
  push_events: 1,
  tag_push_events: 0,
  issues_events: 0,
  confidential_issues_events: 0,
  merge_requests_events: 0,
  note_events: 0,
  job_events: 0,
  pipeline_events: 0,
  wiki_page_events: 0,
  releases_events: 0,
  enable_ssl_verification: 1,
};

/** The 404 of a hook missing from its owner. */
const NOT_FOUND: Record<HookOwner, string> = { project: 'Project Hook', group: 'Group Hook' };

/**
 * The hooks of a project, or of a group (ee, GitLab's ee/lib/api/group_hooks.rb): the same fields,
 * defaults and url rule; the projects of a group and of its subgroups fire its hooks (fire.ts).
 */
export function listHooks<O extends HookOwner>(db: Db, owner: O, ownerId: number, page: Page): Paged<HookRow<O>> {
  return listHooksOf(db, owner, ownerId, page);
}

/** One hook of the owner, or 404 `Project Hook` / `Group Hook` (also when it belongs to another owner). */
export function getHook<O extends HookOwner>(db: Db, owner: O, ownerId: number, hookId: number): HookRow<O> {
  const hook = findHook(db, owner, hookId);
  if (!hook || hook[ownerColumn(owner)] !== ownerId) throw notFound(NOT_FOUND[owner]);
  return hook;
}

export function createHook<O extends HookOwner>(db: Db, owner: O, ownerId: number, input: HookInput): HookRow<O> {
  const values = mergeHookInput(HOOK_DEFAULTS, input);
  return inTransaction(db, () => getHook(db, owner, ownerId, insertHook(db, owner, ownerId, values, nowIso())));
}

export function updateHook<O extends HookOwner>(db: Db, owner: O, ownerId: number, hookId: number, input: HookInput): HookRow<O> {
  return inTransaction(db, () => {
    const hook = getHook(db, owner, ownerId, hookId);
    updateHookRow(db, owner, hook.id, mergeHookInput(hook, input), nowIso());
    return getHook(db, owner, ownerId, hookId);
  });
}

export function deleteHook(db: Db, owner: HookOwner, ownerId: number, hookId: number, unmodifiedSince: number | null): void {
  inTransaction(db, () => {
    const hook = getHook(db, owner, ownerId, hookId);
    assertUnmodifiedSince(unmodifiedSince, hook.updated_at);
    deleteHookRow(db, owner, hook.id);
  });
}

/** A hook's values after a create or update: 400 on a bad url. */
function mergeHookInput(current: HookValues, input: HookInput): HookValues {
  const values: HookValues = { ...pick(current), url: validateHookUrl(input.url) };
  // An empty token clears it.
  if (input.token !== undefined) values.token = input.token === '' ? null : input.token;
  for (const name of [...HOOK_FLAGS, 'enable_ssl_verification'] as const) {
    const given = input[name];
    if (given !== undefined) values[name] = given ? 1 : 0;
  }
  return values;
}

function pick(row: HookValues): HookValues {
  const values = { url: row.url, token: row.token, enable_ssl_verification: row.enable_ssl_verification } as HookValues;
  for (const name of HOOK_FLAGS) values[name] = row[name];
  return values;
}

/**
 * A hook URL must be absolute http or https with a host (GITLAB-NOTES 2.2). Kept as given, trimmed.
 * Local and private addresses are allowed: a self-hosted site commonly calls a bot next to it.
 */
export function validateHookUrl(raw: string): string {
  const url = raw.trim();
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid({ url: ['is invalid'] });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalid({ url: ['is blocked: Only allowed protocols are http, https'] });
  if (!/^https?:\/\//i.test(url) || !parsed.hostname || /[\s\x00-\x1f]/.test(url)) throw invalid({ url: ['is invalid'] });
  return url;
}
