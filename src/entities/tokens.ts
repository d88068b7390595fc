import type { PersonalAccessTokenRow, ResourceTokenRow } from '../db/tables/personal-access-tokens.js';
import { isExpiredDate } from '../storage/clock.js';
import { flag, isoTime } from './column-values.js';

/** The scopes a personal access token may carry (GitLab 10.8's). */
export const TOKEN_SCOPES = ['api', 'read_user', 'sudo'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** What every token view shows: who, what for, and whether it still works. */
function tokenFields(row: PersonalAccessTokenRow) {
  const revoked = flag(row.revoked);
  return {
    id: row.id,
    name: row.name,
    revoked,
    created_at: isoTime(row.created_at),
    scopes: JSON.parse(row.scopes) as string[],
    user_id: row.user_id,
    active: !revoked && !isExpiredDate(row.expires_at),
    expires_at: row.expires_at,
  };
}

/** ImpersonationToken; the secret appears only in the create response (GITLAB-NOTES 2.8). */
export function impersonationToken(row: PersonalAccessTokenRow, secret?: string) {
  return { ...tokenFields(row), impersonation: flag(row.impersonation), ...(secret === undefined ? {} : { token: secret }) };
}

/** PersonalAccessToken (GitLab 13.3+); with `token` only in the create response (PersonalAccessTokenWithToken). */
export function personalAccessToken(row: PersonalAccessTokenRow, secret?: string) {
  return { ...tokenFields(row), last_used_at: isoTime(row.last_used_at), ...(secret === undefined ? {} : { token: secret }) };
}

/** ResourceAccessToken (GitLab 13.9+): a project's or group's token with its bot's access level; `token` only when created or rotated. */
export function resourceAccessToken(row: ResourceTokenRow, secret?: string) {
  return { ...personalAccessToken(row), access_level: row.access_level, ...(secret === undefined ? {} : { token: secret }) };
}
