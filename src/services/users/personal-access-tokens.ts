import type { Db } from '../../db/connection.js';
import {
  findPersonalAccessToken,
  findPersonalAccessTokenByDigest,
  insertPersonalAccessToken,
  reissuePersonalAccessToken,
  type PersonalAccessTokenRow,
} from '../../db/tables/personal-access-tokens.js';
import { nowIso } from '../../storage/clock.js';
import { digestSecret, newSecret } from './secrets.js';

export const TOKEN_SCOPES = ['api', 'read_user', 'sudo'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];
/** Impersonation tokens may not carry sudo (SPEC: Impersonation token scopes). */
export const IMPERSONATION_SCOPES: readonly TokenScope[] = ['api', 'read_user'];

/** Creates a personal or impersonation token; the secret is returned once and only its digest is stored. */
export function createPersonalAccessToken(
  db: Db,
  userId: number,
  options: { name: string; scopes: readonly string[]; expiresAt?: string | null; impersonation?: boolean; secret?: string },
): { row: PersonalAccessTokenRow; token: string } {
  const token = options.secret ?? newSecret('glpat-');
  const id = insertPersonalAccessToken(db, {
    user_id: userId,
    name: options.name,
    token_digest: digestSecret(token),
    scopes: JSON.stringify(options.scopes),
    impersonation: options.impersonation ? 1 : 0,
    expires_at: options.expiresAt ?? null,
    created_at: nowIso(),
  });
  return { row: findPersonalAccessToken(db, id)!, token };
}

/** Makes sure a token with this exact secret exists for the user (GEOFORGE_ROOT_TOKEN at boot); idempotent. */
export function ensurePersonalAccessToken(db: Db, userId: number, secret: string, scopes: readonly string[]): void {
  const existing = findPersonalAccessTokenByDigest(db, digestSecret(secret));
  if (existing) {
    reissuePersonalAccessToken(db, existing.id, userId, JSON.stringify(scopes));
    return;
  }
  createPersonalAccessToken(db, userId, { name: 'root token (configuration)', scopes, secret });
}
