import type { Db } from '../../db/connection.js';
import { prepare } from '../../db/connection.js';
import { nowIso } from '../../storage/clock.js';
import { digestSecret, newSecret } from './secrets.js';

export const TOKEN_SCOPES = ['api', 'read_user', 'sudo'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];
/** Impersonation tokens may not carry sudo (SPEC: Impersonation token scopes). */
export const IMPERSONATION_SCOPES: readonly TokenScope[] = ['api', 'read_user'];

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

/** Creates a personal or impersonation token; the secret is returned once and only its digest is stored. */
export function createPersonalAccessToken(
  db: Db,
  userId: number,
  options: { name: string; scopes: readonly string[]; expiresAt?: string | null; impersonation?: boolean; secret?: string },
): { row: PersonalAccessTokenRow; token: string } {
  const token = options.secret ?? newSecret('glpat-');
  const id = Number(
    prepare(
      db,
      `INSERT INTO personal_access_tokens (user_id, name, token_digest, scopes, impersonation, expires_at, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(userId, options.name, digestSecret(token), JSON.stringify(options.scopes), options.impersonation ? 1 : 0, options.expiresAt ?? null, nowIso())
      .lastInsertRowid,
  );
  return { row: findPersonalAccessToken(db, id)!, token };
}

export function findPersonalAccessToken(db: Db, id: number): PersonalAccessTokenRow | undefined {
  return prepare(db, 'SELECT id, user_id, name, scopes, impersonation, revoked, expires_at, created_at FROM personal_access_tokens WHERE id = ?').get(id) as
    | PersonalAccessTokenRow
    | undefined;
}

/** Makes sure a token with this exact secret exists for the user (GEOFORGE_ROOT_TOKEN at boot); idempotent. */
export function ensurePersonalAccessToken(db: Db, userId: number, secret: string, scopes: readonly string[]): void {
  const existing = prepare(db, 'SELECT id FROM personal_access_tokens WHERE token_digest = ?').pluck().get(digestSecret(secret)) as number | undefined;
  if (existing !== undefined) {
    prepare(db, 'UPDATE personal_access_tokens SET user_id = ?, scopes = ?, revoked = 0, expires_at = NULL WHERE id = ?').run(
      userId,
      JSON.stringify(scopes),
      existing,
    );
    return;
  }
  createPersonalAccessToken(db, userId, { name: 'root token (configuration)', scopes, secret });
}
