import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

/** A secondary email; the primary one lives in users.email. */
export interface EmailRow {
  id: number;
  user_id: number;
  email: string;
  confirmed_at: string | null;
  created_at: string;
}

export function findEmail(db: Db, id: number): EmailRow | undefined {
  return prepare(db, 'SELECT * FROM emails WHERE id = ?').get(id) as EmailRow | undefined;
}

export function listEmailsOf(db: Db, userId: number, page: Page): Paged<EmailRow> {
  return selectPage(db, '*', 'FROM emails WHERE user_id = ?', 'id', [userId], page);
}

export function insertEmail(db: Db, row: Pick<EmailRow, 'user_id' | 'email' | 'created_at'>): number {
  return Number(prepare(db, 'INSERT INTO emails (user_id, email, created_at) VALUES (@user_id, @email, @created_at)').run(row).lastInsertRowid);
}

export function deleteEmailRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM emails WHERE id = ?').run(id);
}

/** Drops the user's secondary copy of an address, once it has become their primary email. */
export function deleteSecondaryEmail(db: Db, userId: number, email: string): void {
  prepare(db, 'DELETE FROM emails WHERE user_id = ? AND email = ? COLLATE NOCASE').run(userId, email);
}

/** Every secondary email of a user (index emails_user): a user has a handful. */
export function emailsOfUser(db: Db, userId: number): EmailRow[] {
  return prepare(db, 'SELECT * FROM emails WHERE user_id = ? ORDER BY id').all(userId) as EmailRow[];
}
