import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { findOauthAccessTokenByRefresh, insertOauthAccessToken, revokeOauthAccessToken } from '../../db/tables/oauth-access-tokens.js';
import { insertSession } from '../../db/tables/sessions.js';
import { findUserByAnyEmail, findUserById, findUserByUsername, updateUser, type UserRow } from '../../db/tables/users.js';
import { nowIso } from '../../storage/clock.js';
import { digestSecret, hashPassword, newSecret, verifyPassword } from './secrets.js';
import { validateUserAttributes } from './validation.js';

export type SignInFailure = 'invalid' | 'blocked' | 'password_expired' | 'weak_password';

const SESSION_DAYS = 14;

/**
 * Checks a login (username or email) and password. A password set by an admin has expired and
 * must be replaced at this sign-in: pass `newPassword` to do so (SPEC: PUT /users/:id).
 */
export async function checkLogin(db: Db, login: string, password: string, newPassword?: string): Promise<UserRow | SignInFailure> {
  const user = findUserByUsername(db, login) ?? findUserByAnyEmail(db, login);
  if (!user || user.ghost || !(await verifyPassword(password, user.password_hash))) return 'invalid';
  if (user.state !== 'active') return 'blocked';
  if (user.password_expires_at !== null && user.password_expires_at <= nowIso()) {
    if (newPassword === undefined) return 'password_expired';
    if (validateUserAttributes({ password: newPassword }).password || newPassword === password) return 'weak_password';
    updateUser(db, user.id, { password_hash: await hashPassword(newPassword), password_expires_at: null, updated_at: nowIso() });
  }
  return findUserById(db, user.id)!;
}

/** Records a sign-in and opens a browser session; returns the cookie secret. */
export function openSession(db: Db, user: UserRow): string {
  const secret = newSecret('');
  const now = nowIso();
  inTransaction(db, () => {
    updateUser(db, user.id, { last_sign_in_at: user.current_sign_in_at ?? now, current_sign_in_at: now });
    insertSession(db, {
      user_id: user.id,
      token_digest: digestSecret(secret),
      expires_at: new Date(Date.now() + SESSION_DAYS * 86400_000).toISOString(),
      created_at: now,
    });
  });
  return secret;
}

export interface OauthGrant {
  access_token: string;
  token_type: 'Bearer';
  refresh_token: string;
  scope: string;
  created_at: number;
}

/** Issues an OAuth access token with a refresh token, as Doorkeeper's password grant does. */
export function issueOauthToken(db: Db, userId: number, scopes: readonly string[]): OauthGrant {
  const access = newSecret('');
  const refresh = newSecret('');
  const now = new Date();
  insertOauthAccessToken(db, {
    user_id: userId,
    token_digest: digestSecret(access),
    refresh_digest: digestSecret(refresh),
    scopes: JSON.stringify(scopes),
    created_at: now.toISOString(),
  });
  return { access_token: access, token_type: 'Bearer', refresh_token: refresh, scope: scopes.join(' '), created_at: Math.floor(now.getTime() / 1000) };
}

/** Trades a refresh token for a new grant, revoking the old access token; null when it is unknown or used. */
export function refreshOauthToken(db: Db, refreshToken: string): OauthGrant | null {
  return inTransaction(db, () => {
    const row = findOauthAccessTokenByRefresh(db, digestSecret(refreshToken));
    if (!row) return null;
    const user = findUserById(db, row.user_id);
    if (!user || user.state !== 'active') return null;
    revokeOauthAccessToken(db, row.id);
    return issueOauthToken(db, row.user_id, JSON.parse(row.scopes) as string[]);
  });
}
