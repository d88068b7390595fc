import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import { deleteEmailRow, findEmail, insertEmail, listEmailsOf, type EmailRow } from '../../db/tables/emails.js';
import { findUserByAnyEmail } from '../../db/tables/users.js';
import { invalid, notFound } from '../../errors.js';
import { assertUnmodifiedSince } from '../unmodified-since.js';
import { nowIso } from '../../storage/clock.js';
import { isValidEmail } from './validation.js';
import { getUser } from './users.js';

/** The user's secondary emails; the primary one is not listed (GITLAB-NOTES 2.8). */
export function listEmails(db: Db, userId: number, page: Page): Paged<EmailRow> {
  getUser(db, userId);
  return listEmailsOf(db, userId, page);
}

/** The user's email, or 404 `Email` (also for another user's email). */
export function getEmail(db: Db, userId: number, emailId: number): EmailRow {
  getUser(db, userId);
  const row = findEmail(db, emailId);
  if (!row || row.user_id !== userId) throw notFound('Email');
  return row;
}

/**
 * Adds a secondary email. Stored stripped and lower-cased as GitLab's Email model does; an address
 * any user holds, as primary or secondary and in any case, is taken.
 */
export function addEmail(db: Db, userId: number, address: string): EmailRow {
  const email = address.trim().toLowerCase();
  return inTransaction(db, () => {
    getUser(db, userId);
    if (!isValidEmail(email)) throw invalid({ email: ['is invalid'] });
    if (findUserByAnyEmail(db, email)) throw invalid({ email: ['has already been taken'] });
    return findEmail(db, insertEmail(db, { user_id: userId, email, created_at: nowIso() }))!;
  });
}

export function deleteEmail(db: Db, userId: number, emailId: number, unmodifiedSince: number | null): void {
  inTransaction(db, () => {
    // An email never changes after it is added: its creation is its last change.
    assertUnmodifiedSince(unmodifiedSince, getEmail(db, userId, emailId).created_at);
    deleteEmailRow(db, emailId);
  });
}
