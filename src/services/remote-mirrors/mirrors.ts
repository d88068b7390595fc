import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import {
  deleteRemoteMirrorRow,
  findRemoteMirrorRow,
  insertRemoteMirrorRow,
  listRemoteMirrorRows,
  scheduleRemoteMirrorRows,
  updateRemoteMirrorSettings,
  type RemoteMirrorRow,
  type RemoteMirrorSettings,
} from '../../db/tables/remote-mirrors.js';
import { badRequest, invalid, notFound } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';
import { assertOutboundUrl, LocalNetworkError } from '../local-network.js';

/** What a create or an update may set; an absent field keeps its value (its default on create). */
export interface RemoteMirrorInput {
  readonly enabled?: boolean;
  readonly only_protected_branches?: boolean;
  readonly keep_divergent_refs?: boolean;
  readonly auth_method?: 'password' | 'ssh_public_key';
  /** ee: a regex branch names must match to be mirrored; an empty one clears it. */
  readonly mirror_branch_regex?: string;
}

/** GitLab's defaults: a new mirror is disabled, mirrors every branch and force-pushes. */
const DEFAULTS: RemoteMirrorSettings = { enabled: 0, only_protected_branches: 0, keep_divergent_refs: 0, auth_method: 'password', mirror_branch_regex: null };

export function listRemoteMirrors(db: Db, project: ProjectRow, page: Page): Paged<RemoteMirrorRow> {
  return listRemoteMirrorRows(db, project.id, page);
}

/** One mirror of the project, or 404 `Not found` (GitLab's find raises RecordNotFound), also when it is another project's. */
export function getRemoteMirror(db: Db, project: ProjectRow, mirrorId: number): RemoteMirrorRow {
  const mirror = findRemoteMirrorRow(db, mirrorId);
  if (!mirror || mirror.project_id !== project.id) throw notFound();
  return mirror;
}

/**
 * Adds a mirror (GitLab's POST /remote_mirrors): the URL is checked as a webhook's is, against the
 * local-network rule of allow_local_requests_from_web_hooks_and_services (`allowLocal`); each push
 * checks the resolved address again. An enabled mirror is scheduled at once, as GitLab's
 * RemoteMirror is after create.
 */
export function createRemoteMirror(db: Db, project: ProjectRow, url: string, input: RemoteMirrorInput, allowLocal: boolean): RemoteMirrorRow {
  const checked = validateMirrorUrl(url, allowLocal);
  const settings = mergeSettings(DEFAULTS, input);
  return inTransaction(db, () => {
    const now = nowIso();
    const id = insertRemoteMirrorRow(db, project.id, checked, settings, now);
    if (settings.enabled) scheduleRemoteMirrorRows(db, { id }, Date.now(), now);
    return findRemoteMirrorRow(db, id)!;
  });
}

/** Changes a mirror's settings (GitLab's PUT takes no URL); enabling one schedules it. */
export function updateRemoteMirror(db: Db, project: ProjectRow, mirrorId: number, input: RemoteMirrorInput): RemoteMirrorRow {
  return inTransaction(db, () => {
    const mirror = getRemoteMirror(db, project, mirrorId);
    const settings = mergeSettings(mirror, input);
    const now = nowIso();
    updateRemoteMirrorSettings(db, mirror.id, settings, now);
    if (settings.enabled && !mirror.enabled) scheduleRemoteMirrorRows(db, { id: mirror.id }, Date.now(), now);
    return findRemoteMirrorRow(db, mirror.id)!;
  });
}

export function deleteRemoteMirror(db: Db, project: ProjectRow, mirrorId: number): void {
  inTransaction(db, () => deleteRemoteMirrorRow(db, getRemoteMirror(db, project, mirrorId).id));
}

/** POST .../sync (GitLab 16.11's RemoteMirrors::SyncService): schedules an update now; a disabled mirror is a 400. */
export function syncRemoteMirror(db: Db, project: ProjectRow, mirrorId: number): void {
  inTransaction(db, () => {
    const mirror = getRemoteMirror(db, project, mirrorId);
    if (!mirror.enabled) throw badRequest('Cannot proceed with the push mirroring. Please verify your mirror configuration.');
    scheduleRemoteMirrorRows(db, { id: mirror.id }, Date.now(), nowIso());
  });
}

/** Schedules every enabled mirror of the project (after a push); the caller's transaction, if any, decides. */
export function scheduleProjectMirrors(db: Db, projectId: number): number {
  return scheduleRemoteMirrorRows(db, { projectId }, Date.now(), nowIso());
}

const SCHEMES_ONLY = { url: ['is blocked: Only allowed schemes are http, https'] };

/**
 * A mirror URL (GitLab's RemoteMirror validation): absolute http or https with a host, kept as
 * given. ssh:// and git:// (GitLab allows them) are refused: only password authentication is offered.
 */
function validateMirrorUrl(raw: string, allowLocal: boolean): string {
  const url = raw.trim();
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid({ url: ['is invalid'] });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw invalid(SCHEMES_ONLY);
  if (!/^https?:\/\//i.test(url) || !parsed.hostname || /[\s\x00-\x1f]/.test(url)) throw invalid({ url: ['is invalid'] });
  try {
    assertOutboundUrl(parsed, allowLocal);
  } catch (error) {
    if (error instanceof LocalNetworkError) throw invalid({ url: [`is blocked: ${error.message}`] });
    throw error;
  }
  return url;
}

/**
 * The settings after an input. ssh_public_key is refused (400): pushing with a key pair is not
 * offered. ee's mirror_branch_regex and only_protected_branches are one branch filter at a time
 * (GitLab's verify_mirror_branches_setting): setting one clears the other; both at once are a 400.
 */
function mergeSettings(current: RemoteMirrorSettings, input: RemoteMirrorInput): RemoteMirrorSettings {
  if (input.auth_method === 'ssh_public_key') throw invalid({ auth_method: ['ssh_public_key is not supported: only password authentication (credentials in the URL) is'] });
  const regex = input.mirror_branch_regex;
  if (regex) {
    if (input.only_protected_branches) throw badRequest('only_protected_branches and mirror_branch_regex are mutually exclusive');
    try {
      new RegExp(regex, 'u');
    } catch {
      throw invalid({ mirror_branch_regex: ['is not a valid regular expression'] });
    }
  }
  const flag = (value: boolean | undefined, was: number) => (value === undefined ? was : value ? 1 : 0);
  const onlyProtected = flag(input.only_protected_branches, current.only_protected_branches);
  return {
    enabled: flag(input.enabled, current.enabled),
    only_protected_branches: regex ? 0 : onlyProtected,
    keep_divergent_refs: flag(input.keep_divergent_refs, current.keep_divergent_refs),
    auth_method: input.auth_method ?? current.auth_method,
    mirror_branch_regex: regex ? regex : regex === '' || onlyProtected ? null : current.mirror_branch_regex,
  };
}
