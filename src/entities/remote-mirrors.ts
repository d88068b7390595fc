import type { RemoteMirrorRow } from '../db/tables/remote-mirrors.js';
import { flag, isoTime } from './column-values.js';

/**
 * The URL as GitLab's safe_url shows it: a user name and a password, each replaced by `*****`;
 * the rest as given.
 */
export function maskedMirrorUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/?#@]*)@/i, (_match, scheme: string, userInfo: string) => {
    const colon = userInfo.indexOf(':');
    const masked = colon < 0 ? '*****' : `${colon > 0 ? '*****' : ''}:${colon < userInfo.length - 1 ? '*****' : ''}`;
    return `${scheme}${masked}@`;
  });
}

/**
 * GitLab 17's RemoteMirror entity (ee adds mirror_branch_regex). `host_keys` lists SSH host key
 * fingerprints, always empty here: mirrors push over http(s) only.
 */
export function remoteMirror(row: RemoteMirrorRow) {
  return {
    id: row.id,
    enabled: flag(row.enabled),
    url: maskedMirrorUrl(row.url),
    update_status: row.update_status,
    last_update_at: isoTime(row.last_update_at),
    last_update_started_at: isoTime(row.last_update_started_at),
    last_successful_update_at: isoTime(row.last_successful_update_at),
    last_error: row.last_error,
    only_protected_branches: flag(row.only_protected_branches),
    keep_divergent_refs: flag(row.keep_divergent_refs),
    auth_method: row.auth_method,
    mirror_branch_regex: row.mirror_branch_regex,
    host_keys: [] as never[],
  };
}
