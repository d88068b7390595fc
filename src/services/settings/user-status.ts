import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { deleteUserStatus, findUserStatus, upsertUserStatus, type UserStatusRow } from '../../db/tables/user-statuses.js';
import { invalid, type FieldErrors } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';
import { normalizeEmojiName } from '../issuables/emoji-names.js';

/** GitLab's UserStatus::DEFAULT_EMOJI: a message set without an emoji gets this one. */
const DEFAULT_EMOJI = 'speech_balloon';
const MESSAGE_MAX = 100;

/** The user's status, or null when none is set. */
export function getUserStatus(db: Db, userId: number): UserStatusRow | null {
  return findUserStatus(db, userId) ?? null;
}

/**
 * Sets or clears the user's status (GitLab's Users::SetStatusService): both blank clears it; a
 * message without an emoji gets `speech_balloon`. The emoji must name one the tracker knows (the
 * award emoji names, emojibase-data), 400 `{emoji: ["is not included in the list"]}`; the message
 * is at most 100 characters.
 */
export function setUserStatus(db: Db, userId: number, input: { emoji?: string; message?: string }): UserStatusRow | null {
  const emoji = input.emoji?.trim() ?? '';
  const message = input.message?.trim() ?? '';
  return inTransaction(db, () => {
    if (emoji === '' && message === '') {
      deleteUserStatus(db, userId);
      return null;
    }
    const errors: FieldErrors = {};
    const name = emoji === '' ? DEFAULT_EMOJI : normalizeEmojiName(emoji);
    if (!name) errors.emoji = ['is not included in the list'];
    if ([...message].length > MESSAGE_MAX) errors.message = [`is too long (maximum is ${MESSAGE_MAX} characters)`];
    if (Object.keys(errors).length > 0) throw invalid(errors);
    upsertUserStatus(db, userId, name!, message === '' ? null : message, nowIso());
    return findUserStatus(db, userId)!;
  });
}
