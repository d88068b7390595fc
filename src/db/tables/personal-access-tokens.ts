import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

/** A personal or impersonation token; only the secret's digest is stored, and it is never read back. */
export interface PersonalAccessTokenRow {
  id: number;
  user_id: number;
  name: string;
  scopes: string;
  impersonation: number;
  revoked: number;
  expires_at: string | null;
  created_at: string;
}

const COLUMNS = 'id, user_id, name, scopes, impersonation, revoked, expires_at, created_at';

export function insertPersonalAccessToken(db: Db, row: Omit<PersonalAccessTokenRow, 'id' | 'revoked'> & { token_digest: string }): number {
  return Number(
    prepare(
      db,
      `INSERT INTO personal_access_tokens (user_id, name, token_digest, scopes, impersonation, expires_at, created_at)
       VALUES (@user_id, @name, @token_digest, @scopes, @impersonation, @expires_at, @created_at)`,
    ).run(row).lastInsertRowid,
  );
}

export function findPersonalAccessToken(db: Db, id: number): PersonalAccessTokenRow | undefined {
  return prepare(db, `SELECT ${COLUMNS} FROM personal_access_tokens WHERE id = ?`).get(id) as PersonalAccessTokenRow | undefined;
}

export function findPersonalAccessTokenByDigest(db: Db, digest: string): PersonalAccessTokenRow | undefined {
  return prepare(db, `SELECT ${COLUMNS} FROM personal_access_tokens WHERE token_digest = ?`).get(digest) as PersonalAccessTokenRow | undefined;
}

/** Gives an existing token to a user with new scopes, unrevoked and without expiry. */
export function reissuePersonalAccessToken(db: Db, id: number, userId: number, scopes: string): void {
  prepare(db, 'UPDATE personal_access_tokens SET user_id = ?, scopes = ?, revoked = 0, expires_at = NULL WHERE id = ?').run(userId, scopes, id);
}

export function revokePersonalAccessToken(db: Db, id: number): void {
  prepare(db, 'UPDATE personal_access_tokens SET revoked = 1 WHERE id = ?').run(id);
}

export type TokenState = 'all' | 'active' | 'inactive';

/** Active means neither revoked nor past its expiry date (GITLAB-NOTES 2.8). */
const STATE_SQL: Record<TokenState, string> = {
  all: '',
  active: 'AND revoked = 0 AND (expires_at IS NULL OR expires_at >= ?)',
  inactive: 'AND (revoked = 1 OR expires_at < ?)',
};

/** A user's impersonation tokens in a state as of `today` (YYYY-MM-DD), newest first. */
export function listImpersonationTokenRows(db: Db, userId: number, state: TokenState, today: string, page: Page): Paged<PersonalAccessTokenRow> {
  const params: unknown[] = state === 'all' ? [userId] : [userId, today];
  return selectPage(db, COLUMNS, `FROM personal_access_tokens WHERE user_id = ? AND impersonation = 1 ${STATE_SQL[state]}`, 'id DESC', params, page);
}
