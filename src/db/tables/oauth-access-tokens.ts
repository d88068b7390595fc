import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

/** An OAuth access token and its refresh token, both stored as digests. */
export interface OauthAccessTokenRow {
  id: number;
  user_id: number;
  scopes: string;
  revoked: number;
  expires_at: string | null;
}

export function insertOauthAccessToken(db: Db, row: { user_id: number; token_digest: string; refresh_digest: string; scopes: string; created_at: string }): void {
  prepare(
    db,
    'INSERT INTO oauth_access_tokens (user_id, token_digest, refresh_digest, scopes, created_at) VALUES (@user_id, @token_digest, @refresh_digest, @scopes, @created_at)',
  ).run(row);
}

export function findOauthAccessTokenByDigest(db: Db, digest: string): OauthAccessTokenRow | undefined {
  return prepare(db, 'SELECT id, user_id, scopes, revoked, expires_at FROM oauth_access_tokens WHERE token_digest = ?').get(digest) as OauthAccessTokenRow | undefined;
}

/** The unrevoked token a refresh token belongs to. */
export function findOauthAccessTokenByRefresh(db: Db, refreshDigest: string): OauthAccessTokenRow | undefined {
  return prepare(db, 'SELECT id, user_id, scopes, revoked, expires_at FROM oauth_access_tokens WHERE refresh_digest = ? AND revoked = 0').get(refreshDigest) as
    | OauthAccessTokenRow
    | undefined;
}

/** Revokes the token and forgets its refresh token, so a refresh is used once. */
export function revokeOauthAccessToken(db: Db, id: number): void {
  prepare(db, 'UPDATE oauth_access_tokens SET revoked = 1, refresh_digest = NULL WHERE id = ?').run(id);
}
