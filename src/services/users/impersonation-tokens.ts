import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import {
  findPersonalAccessToken,
  listImpersonationTokenRows,
  revokePersonalAccessToken,
  type PersonalAccessTokenRow,
  type TokenState,
} from '../../db/tables/personal-access-tokens.js';
import { invalid, notFound } from '../../errors.js';
import { assertUnmodifiedSince } from '../unmodified-since.js';
import { today } from '../../storage/clock.js';
import { createPersonalAccessToken, IMPERSONATION_SCOPES } from './personal-access-tokens.js';
import { getUser } from './users.js';

export function listImpersonationTokens(db: Db, userId: number, state: TokenState, page: Page): Paged<PersonalAccessTokenRow> {
  getUser(db, userId);
  return listImpersonationTokenRows(db, userId, state, today(), page);
}

export function getImpersonationToken(db: Db, userId: number, tokenId: number): PersonalAccessTokenRow {
  getUser(db, userId);
  const row = findPersonalAccessToken(db, tokenId);
  if (!row || row.user_id !== userId || !row.impersonation) throw notFound('Impersonation Token');
  return row;
}

/** An admin-made token that acts as the user; its secret is returned once (SPEC: impersonation tokens). */
export function createImpersonationToken(
  db: Db,
  userId: number,
  options: { name: string; scopes: readonly string[]; expiresAt: string | null },
): { row: PersonalAccessTokenRow; token: string } {
  const unknown = options.scopes.filter((scope) => !(IMPERSONATION_SCOPES as readonly string[]).includes(scope));
  if (unknown.length || !options.scopes.length) throw invalid({ scopes: ['can only contain available scopes'] });
  if (options.name.length > 255) throw invalid({ name: ['is too long (maximum is 255 characters)'] });
  return inTransaction(db, () => {
    getUser(db, userId);
    return createPersonalAccessToken(db, userId, { ...options, impersonation: true });
  });
}

/** Revokes the token; the record stays, shown with revoked true and active false. */
export function revokeImpersonationToken(db: Db, userId: number, tokenId: number, unmodifiedSince: number | null): void {
  inTransaction(db, () => {
    assertUnmodifiedSince(unmodifiedSince, getImpersonationToken(db, userId, tokenId).created_at);
    revokePersonalAccessToken(db, tokenId);
  });
}
