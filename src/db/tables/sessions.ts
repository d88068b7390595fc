import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

/** A browser session; the cookie secret is stored as a digest. */
export interface SessionRow {
  user_id: number;
  expires_at: string;
}

export function insertSession(db: Db, row: { user_id: number; token_digest: string; expires_at: string; created_at: string }): void {
  prepare(db, 'INSERT INTO sessions (user_id, token_digest, expires_at, created_at) VALUES (@user_id, @token_digest, @expires_at, @created_at)').run(row);
}

export function findSessionByDigest(db: Db, digest: string): SessionRow | undefined {
  return prepare(db, 'SELECT user_id, expires_at FROM sessions WHERE token_digest = ?').get(digest) as SessionRow | undefined;
}
