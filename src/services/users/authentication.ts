import type { Db } from '../../db/connection.js';
import { findOauthAccessTokenByDigest } from '../../db/tables/oauth-access-tokens.js';
import { findPersonalAccessTokenByDigest } from '../../db/tables/personal-access-tokens.js';
import { findSessionByDigest } from '../../db/tables/sessions.js';
import { findUserById, updateUser, type UserRow } from '../../db/tables/users.js';
import { cachedActor } from './actor-cache.js';
import { isExpiredDate, today } from '../../storage/clock.js';
import { digestSecret } from './secrets.js';

export type AuthMethod = 'personal_access_token' | 'impersonation_token' | 'oauth_token' | 'session';

/** Who is calling, and through what; `sudoFrom` is the admin when sudo swapped the user. */
export interface Actor {
  readonly user: UserRow;
  readonly via: AuthMethod;
  readonly scopes: readonly string[];
  readonly sudoFrom: UserRow | null;
  /** The personal (or impersonation) access token the request came with: GET/DELETE /personal_access_tokens/self. */
  readonly tokenId?: number;
}

/** A user acting without a request (work in the background, checks on their behalf): an api-scoped session's actor. */
export const actingAs = (user: UserRow): Actor => ({ user, via: 'session', scopes: ['api'], sudoFrom: null });

export type Credential = { kind: 'private_token' | 'bearer' | 'session'; secret: string };

const userCanSignIn = (user: UserRow | undefined): user is UserRow => !!user && user.state === 'active' && !user.ghost;

type Resolved = { actor: Actor; validUntil: number } | null;

/** Resolves a credential to an actor, or null when it is unknown, revoked, expired or its user blocked (all 401). */
export function authenticateCredential(db: Db, credential: Credential): Actor | null {
  const digest = digestSecret(credential.secret);
  return cachedActor(db, `${credential.kind}:${digest}`, () => {
    if (credential.kind === 'session') return fromSession(db, digest);
    return fromPersonalToken(db, digest) ?? (credential.kind === 'bearer' ? fromOauthToken(db, digest) : null);
  });
}

/** The end of a token's last valid day: it works through its expiry date (UTC). */
const endOfDay = (date: string | null) => (date === null ? Infinity : Date.parse(`${date}T00:00:00Z`) + 86_400_000);

function fromPersonalToken(db: Db, digest: string): Resolved {
  const token = findPersonalAccessTokenByDigest(db, digest);
  if (!token || token.revoked || isExpiredDate(token.expires_at)) return null;
  const user = findUserById(db, token.user_id);
  if (!userCanSignIn(user)) return null;
  const via = token.impersonation ? 'impersonation_token' : 'personal_access_token';
  return { actor: { user, via, scopes: JSON.parse(token.scopes) as string[], sudoFrom: null, tokenId: token.id }, validUntil: endOfDay(token.expires_at) };
}

function fromOauthToken(db: Db, digest: string): Resolved {
  const token = findOauthAccessTokenByDigest(db, digest);
  if (!token || token.revoked || (token.expires_at && token.expires_at <= new Date().toISOString())) return null;
  const user = findUserById(db, token.user_id);
  if (!userCanSignIn(user)) return null;
  const validUntil = token.expires_at ? Date.parse(token.expires_at) : Infinity;
  return { actor: { user, via: 'oauth_token', scopes: JSON.parse(token.scopes) as string[], sudoFrom: null }, validUntil };
}

function fromSession(db: Db, digest: string): Resolved {
  const session = findSessionByDigest(db, digest);
  if (!session || session.expires_at <= new Date().toISOString()) return null;
  const user = findUserById(db, session.user_id);
  if (!userCanSignIn(user)) return null;
  // A signed-in browser session acts with full API rights, as GitLab's web session does.
  return { actor: actingAs(user), validUntil: Date.parse(session.expires_at) };
}


/** Scopes of the read-only token kind allow GET on the users family and the caller's events alone (GITLAB-NOTES 1.7; GitLab's events API allows read_user). */
export function missingScope(scopes: readonly string[], method: string, path: string): string | null {
  if (scopes.includes('api')) return null;
  // A token of any scope may read and revoke itself (GitLab's PersonalAccessTokens::SelfInformation and SelfRevocation).
  if ((read(method) || method === 'DELETE') && path === '/personal_access_tokens/self') return null;
  if (read(method) && scopes.includes('read_user') && /^\/(users?|events)(\/|$)/.test(path)) return null;
  // GitLab 12.10+: read_api reads everything api does; self_rotate rotates the token it is (16.10+).
  if (read(method) && scopes.includes('read_api')) return null;
  if (method === 'POST' && scopes.includes('self_rotate') && path === '/personal_access_tokens/self/rotate') return null;
  return 'api';
}

const read = (method: string) => method === 'GET' || method === 'HEAD';

/** Records API or Git use at most once per user per day (GITLAB-NOTES 2.8). */
export function touchActivity(db: Db, user: UserRow): void {
  const day = today();
  if (user.last_activity_on === day) return;
  updateUser(db, user.id, { last_activity_on: day });
}
