import type { MemberRow, UserMembershipRow } from '../db/tables/members.js';
import type { UserRow } from '../db/tables/users.js';
import { userBasic, type EntityContext } from './users.js';

/** Member: UserBasic plus the membership's level and expiry; `id` is the user's id, as in GitLab. */
export function member(row: MemberRow, ctx: EntityContext) {
  return Object.assign(userBasic(row, ctx), { access_level: row.access_level, expires_at: row.expires_at });
}

/** Membership: one of a user's memberships (GET /users/:user_id/memberships). */
export const membership = (row: UserMembershipRow) => ({
  source_id: row.source_id,
  source_name: row.source_name,
  source_type: row.source_type,
  access_level: row.access_level,
});
/** AccessRequester: UserBasic plus when the user asked. */
export function accessRequester(row: UserRow & { requested_at: string }, ctx: EntityContext) {
  return Object.assign(userBasic(row, ctx), { requested_at: row.requested_at });
}
