import type { AwardEmojiRow } from '../db/tables/award-emoji.js';
import type { UserRow } from '../db/tables/users.js';
import { isoTime } from './column-values.js';
import { userBasic, type EntityContext } from './users.js';

/** AwardEmoji (ENT AwardEmoji); `users` holds the page's givers. */
export function awardEmojiView(row: AwardEmojiRow, users: ReadonlyMap<number, UserRow>, ctx: EntityContext) {
  const user = users.get(row.user_id);
  return {
    id: row.id,
    name: row.name,
    user: user ? userBasic(user, ctx) : null,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
    awardable_id: row.awardable_id,
    awardable_type: row.awardable_type,
  };
}
