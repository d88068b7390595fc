import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

export type AwardableType = 'Issue' | 'MergeRequest' | 'Epic' | 'Note' | 'Snippet';

export interface AwardEmojiRow {
  id: number;
  name: string;
  user_id: number;
  awardable_type: AwardableType;
  awardable_id: number;
  created_at: string;
  updated_at: string;
}

/** `upvotes` and `downvotes` of each awardable: its thumbsup and thumbsdown awards, one query for a page. */
export function voteCounts(db: Db, type: AwardableType, awardableIds: readonly number[]): Map<number, { upvotes: number; downvotes: number }> {
  if (!awardableIds.length) return new Map();
  const rows = prepare(
    db,
    `SELECT awardable_id AS id, sum(name = 'thumbsup') AS upvotes, sum(name = 'thumbsdown') AS downvotes FROM award_emoji
     WHERE awardable_type = ? AND awardable_id IN (SELECT value FROM json_each(?)) AND name IN ('thumbsup', 'thumbsdown') GROUP BY awardable_id`,
  ).all(type, JSON.stringify(awardableIds)) as { id: number; upvotes: number; downvotes: number }[];
  return new Map(rows.map((row) => [row.id, { upvotes: row.upvotes, downvotes: row.downvotes }]));
}

export function awardsOf(db: Db, type: AwardableType, awardableId: number): AwardEmojiRow[] {
  return prepare(db, 'SELECT * FROM award_emoji WHERE awardable_type = ? AND awardable_id = ? ORDER BY id').all(type, awardableId) as AwardEmojiRow[];
}

/** Copies awards onto another awardable of the same type (a moved issue and its notes keep their emoji). */
export function copyAwards(db: Db, awards: readonly AwardEmojiRow[], awardableId: number): void {
  const insert = prepare(
    db,
    'INSERT OR IGNORE INTO award_emoji (name, user_id, awardable_type, awardable_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  for (const award of awards) insert.run(award.name, award.user_id, award.awardable_type, awardableId, award.created_at, award.updated_at);
}

/** Deletes the awards on these awardables (award emoji do not cascade from their polymorphic target). */
export function deleteAwardsOf(db: Db, type: AwardableType, awardableIds: readonly number[]): void {
  prepare(db, 'DELETE FROM award_emoji WHERE awardable_type = ? AND awardable_id IN (SELECT value FROM json_each(?))').run(type, JSON.stringify(awardableIds));
}

/** A page of an awardable's awards, oldest first (index award_emoji_awardable_name covers the filter). */
export function awardsPage(db: Db, type: AwardableType, awardableId: number, page: Page): Paged<AwardEmojiRow> {
  return selectPage<AwardEmojiRow>(db, '*', 'FROM award_emoji WHERE awardable_type = ? AND awardable_id = ?', 'id', [type, awardableId], page);
}

export function findAwardOf(db: Db, type: AwardableType, awardableId: number, awardId: number): AwardEmojiRow | undefined {
  return prepare(db, 'SELECT * FROM award_emoji WHERE id = ? AND awardable_type = ? AND awardable_id = ?').get(awardId, type, awardableId) as AwardEmojiRow | undefined;
}

/** Whether the user already gave this emoji to the awardable (GitLab's uniqueness of name per user and awardable). */
export function hasAward(db: Db, type: AwardableType, awardableId: number, userId: number, name: string): boolean {
  return prepare(db, 'SELECT 1 FROM award_emoji WHERE awardable_type = ? AND awardable_id = ? AND user_id = ? AND name = ?').get(type, awardableId, userId, name) !== undefined;
}

export function insertAward(db: Db, award: Omit<AwardEmojiRow, 'id'>): number {
  return Number(
    prepare(
      db,
      'INSERT INTO award_emoji (name, user_id, awardable_type, awardable_id, created_at, updated_at) VALUES (@name, @user_id, @awardable_type, @awardable_id, @created_at, @updated_at)',
    ).run(award).lastInsertRowid,
  );
}

export function deleteAwardRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM award_emoji WHERE id = ?').run(id);
}

/**
 * Hands a user's award emoji to another (a deleted user's to the ghost user); an award the other
 * already gave the same target stays with the user and goes with them.
 */
export function moveAwardsToUser(db: Db, fromUserId: number, toUserId: number): void {
  prepare(db, 'UPDATE OR IGNORE award_emoji SET user_id = ? WHERE user_id = ?').run(toUserId, fromUserId);
}
