import type { Db } from '../../db/connection.js';
import { inTransaction, prepare } from '../../db/connection.js';
import { selectPage, type Page, type Paged } from '../../db/page.js';
import { invalid, notFound } from '../../errors.js';
import { today } from '../../storage/clock.js';
import { createPersonalAccessToken, findPersonalAccessToken, IMPERSONATION_SCOPES, type PersonalAccessTokenRow } from './personal-access-tokens.js';
import { getUser } from './users.js';

export type TokenState = 'all' | 'active' | 'inactive';

/** Active means neither revoked nor past its expiry date (GITLAB-NOTES 2.8). */
const STATE_SQL: Record<TokenState, string> = {
  all: '',
  active: 'AND revoked = 0 AND (expires_at IS NULL OR expires_at >= ?)',
  inactive: 'AND (revoked = 1 OR expires_at < ?)',
};

export function listImpersonationTokens(db: Db, userId: number, state: TokenState, page: Page): Paged<PersonalAccessTokenRow> {
  getUser(db, userId);
  const params: unknown[] = state === 'all' ? [userId] : [userId, today()];
  return selectPage(
    db,
    'id, user_id, name, scopes, impersonation, revoked, expires_at, created_at',
    `FROM personal_access_tokens WHERE user_id = ? AND impersonation = 1 ${STATE_SQL[state]}`,
    'id DESC',
    params,
    page,
  );
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
export function revokeImpersonationToken(db: Db, userId: number, tokenId: number): void {
  inTransaction(db, () => {
    getImpersonationToken(db, userId, tokenId);
    prepare(db, 'UPDATE personal_access_tokens SET revoked = 1 WHERE id = ?').run(tokenId);
  });
}
