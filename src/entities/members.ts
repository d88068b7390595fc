import type { MemberRow } from '../db/tables/members.js';
import { userBasic, type EntityContext } from './users.js';

/** Member: UserBasic plus the membership's level and expiry; `id` is the user's id, as in GitLab. */
export function member(row: MemberRow, ctx: EntityContext) {
  return Object.assign(userBasic(row, ctx), { access_level: row.access_level, expires_at: row.expires_at });
}
