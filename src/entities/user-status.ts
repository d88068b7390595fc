import type { UserStatusRow } from '../db/tables/user-statuses.js';

/** UserStatus: every field null when the user has none (GitLab presents an empty status). `messageHtml` comes rendered from the service. */
export function userStatus(row: UserStatusRow | null, messageHtml: string | null) {
  return { emoji: row?.emoji ?? null, message: row?.message ?? null, message_html: row?.message ? messageHtml : null };
}
