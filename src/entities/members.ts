import type { UserRow } from '../db/tables/users.js';
import type { MemberRow } from '../db/tables/members.js';
import { userBasic, type EntityContext } from './users.js';

/** Member: UserBasic plus the membership's level and expiry; `id` is the user's id, as in GitLab. */
export function member(row: MemberRow, ctx: EntityContext) {
  return Object.assign(userBasic(row, ctx), { access_level: row.access_level, expires_at: row.expires_at });
}

/** AccessRequester: UserBasic plus when the user asked. */
export function accessRequester(row: UserRow & { requested_at: string }, ctx: EntityContext) {
  return Object.assign(userBasic(row, ctx), { requested_at: row.requested_at });
}
