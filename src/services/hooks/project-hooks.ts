import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import {
  deleteProjectHookRow,
  findProjectHook,
  HOOK_FLAGS,
  insertProjectHook,
  listProjectHooksOf,
  updateProjectHookRow,
  type HookFlag,
  type ProjectHookRow,
  type ProjectHookValues,
} from '../../db/tables/project-hooks.js';
import { invalid, notFound } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';

/** What a create or update may set; an absent field keeps its current value (or its default on create). */
export type ProjectHookInput = { url: string; token?: string; enable_ssl_verification?: boolean } & Partial<Record<HookFlag, boolean>>;

/** GITLAB-NOTES 2.2: push_events on, every other kind off, TLS verified (group hooks too). */
export const HOOK_DEFAULTS: ProjectHookValues = {
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
  enable_ssl_verification: 1,
};

export function listProjectHooks(db: Db, projectId: number, page: Page): Paged<ProjectHookRow> {
  return listProjectHooksOf(db, projectId, page);
}

/** One hook of the project, or 404 `Project Hook` (also when it belongs to another project). */
export function getProjectHook(db: Db, projectId: number, hookId: number): ProjectHookRow {
  const hook = findProjectHook(db, hookId);
  if (!hook || hook.project_id !== projectId) throw notFound('Project Hook');
  return hook;
}

export function createProjectHook(db: Db, projectId: number, input: ProjectHookInput): ProjectHookRow {
  const values = mergeHookInput(HOOK_DEFAULTS, input);
  return inTransaction(db, () => getProjectHook(db, projectId, insertProjectHook(db, projectId, values, nowIso())));
}

export function updateProjectHook(db: Db, projectId: number, hookId: number, input: ProjectHookInput): ProjectHookRow {
  return inTransaction(db, () => {
    const hook = getProjectHook(db, projectId, hookId);
    updateProjectHookRow(db, hook.id, mergeHookInput(hook, input), nowIso());
    return getProjectHook(db, projectId, hookId);
  });
}

export function deleteProjectHook(db: Db, projectId: number, hookId: number): void {
  inTransaction(db, () => deleteProjectHookRow(db, getProjectHook(db, projectId, hookId).id));
}

/** A hook's values after a create or update (project and group hooks alike): 400 on a bad url. */
export function mergeHookInput(current: ProjectHookValues, input: ProjectHookInput): ProjectHookValues {
  const values: ProjectHookValues = { ...pick(current), url: validateHookUrl(input.url) };
  // An empty token clears it.
  if (input.token !== undefined) values.token = input.token === '' ? null : input.token;
  for (const name of [...HOOK_FLAGS, 'enable_ssl_verification'] as const) {
    const given = input[name];
    if (given !== undefined) values[name] = given ? 1 : 0;
  }
  return values;
}

function pick(row: ProjectHookValues): ProjectHookValues {
  const values = { url: row.url, token: row.token, enable_ssl_verification: row.enable_ssl_verification } as ProjectHookValues;
  for (const name of HOOK_FLAGS) values[name] = row[name];
  return values;
}

/**
 * A hook URL must be absolute http or https with a host (GITLAB-NOTES 2.2). Kept as given, trimmed.
 * Local and private addresses are allowed: a self-hosted site commonly calls a bot next to it.
 */
function validateHookUrl(raw: string): string {
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
