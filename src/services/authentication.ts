import type { Db } from '../db/connection.js';
import { prepare } from '../db/connection.js';
import type { UserRow } from '../db/tables/users.js';
import { today } from './clock.js';
import { digestSecret } from './secrets.js';

export type AuthMethod = 'personal_access_token' | 'impersonation_token' | 'oauth_token' | 'session';

/** Who is calling, and through what; `sudoFrom` is the admin when sudo swapped the user. */
export interface Actor {
  readonly user: UserRow;
  readonly via: AuthMethod;
  readonly scopes: readonly string[];
  readonly sudoFrom: UserRow | null;
}

export type Credential = { kind: 'private_token' | 'bearer' | 'session'; secret: string };

interface TokenJoin extends UserRow {
  token_scopes: string;
  token_impersonation: number;
  token_revoked: number;
  token_expires_at: string | null;
}

const userCanSignIn = (user: UserRow) => user.state === 'active' && !user.ghost;

/** Resolves a credential to an actor, or null when it is unknown, revoked, expired or its user blocked (all 401). */
export function authenticateCredential(db: Db, credential: Credential): Actor | null {
  const digest = digestSecret(credential.secret);
  if (credential.kind === 'session') return fromSession(db, digest);
  return fromPersonalToken(db, digest) ?? (credential.kind === 'bearer' ? fromOauthToken(db, digest) : null);
}

function fromPersonalToken(db: Db, digest: string): Actor | null {
  const row = prepare(
    db,
    `SELECT users.*, t.scopes AS token_scopes, t.impersonation AS token_impersonation, t.revoked AS token_revoked, t.expires_at AS token_expires_at
     FROM personal_access_tokens t JOIN users ON users.id = t.user_id WHERE t.token_digest = ?`,
  ).get(digest) as TokenJoin | undefined;
  if (!row || row.token_revoked || isExpiredDate(row.token_expires_at) || !userCanSignIn(row)) return null;
  return {
    user: stripToken(row),
    via: row.token_impersonation ? 'impersonation_token' : 'personal_access_token',
    scopes: JSON.parse(row.token_scopes) as string[],
    sudoFrom: null,
  };
}

function fromOauthToken(db: Db, digest: string): Actor | null {
  const row = prepare(
    db,
    `SELECT users.*, t.scopes AS token_scopes, t.revoked AS token_revoked, t.expires_at AS token_expires_at
     FROM oauth_access_tokens t JOIN users ON users.id = t.user_id WHERE t.token_digest = ?`,
  ).get(digest) as TokenJoin | undefined;
  if (!row || row.token_revoked || (row.token_expires_at && row.token_expires_at <= new Date().toISOString()) || !userCanSignIn(row)) return null;
  return { user: stripToken(row), via: 'oauth_token', scopes: JSON.parse(row.token_scopes) as string[], sudoFrom: null };
}

function fromSession(db: Db, digest: string): Actor | null {
  const row = prepare(db, `SELECT users.*, s.expires_at AS token_expires_at FROM sessions s JOIN users ON users.id = s.user_id WHERE s.token_digest = ?`).get(
    digest,
  ) as TokenJoin | undefined;
  if (!row || (row.token_expires_at ?? '') <= new Date().toISOString() || !userCanSignIn(row)) return null;
  // A signed-in browser session acts with full API rights, as GitLab's web session does.
  return { user: stripToken(row), via: 'session', scopes: ['api'], sudoFrom: null };
}

/** A token whose expiry date has passed is inactive; one expiring today still works until midnight UTC. */
export function isExpiredDate(expiresAt: string | null): boolean {
  return expiresAt !== null && expiresAt < today();
}

function stripToken(row: TokenJoin): UserRow {
  const { token_scopes: _s, token_impersonation: _i, token_revoked: _r, token_expires_at: _e, ...user } = row;
  return user;
}

/** Scopes of the read-only token kind allow GET on the users family alone (GITLAB-NOTES 1.7). */
export function missingScope(scopes: readonly string[], method: string, path: string): string | null {
  if (scopes.includes('api')) return null;
  const read = method === 'GET' || method === 'HEAD';
  if (read && scopes.includes('read_user') && /^\/users?(\/|$)/.test(path)) return null;
  return 'api';
}

/** Records API or Git use at most once per user per day (GITLAB-NOTES 2.8). */
export function touchActivity(db: Db, user: UserRow): void {
  const day = today();
  if (user.last_activity_on === day) return;
  prepare(db, 'UPDATE users SET last_activity_on = ? WHERE id = ?').run(day, user.id);
}
