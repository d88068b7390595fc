import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

/** A user's status: an emoji and an optional short message. */
export interface UserStatusRow {
  id: number;
  user_id: number;
  emoji: string;
  message: string | null;
  created_at: string;
  updated_at: string;
}

export function findUserStatus(db: Db, userId: number): UserStatusRow | undefined {
  return prepare(db, 'SELECT * FROM user_statuses WHERE user_id = ?').get(userId) as UserStatusRow | undefined;
}

export function upsertUserStatus(db: Db, userId: number, emoji: string, message: string | null, now: string): void {
  prepare(
    db,
    `INSERT INTO user_statuses (user_id, emoji, message, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (user_id) DO UPDATE SET emoji = excluded.emoji, message = excluded.message, updated_at = excluded.updated_at`,
  ).run(userId, emoji, message, now, now);
}

export function deleteUserStatus(db: Db, userId: number): void {
  prepare(db, 'DELETE FROM user_statuses WHERE user_id = ?').run(userId);
}
