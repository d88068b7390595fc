import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import {
  findPersonalAccessToken,
  findPersonalAccessTokenByDigest,
  insertPersonalAccessToken,
  listPersonalAccessTokenRows,
  reissuePersonalAccessToken,
  revokePersonalAccessToken,
  type PersonalAccessTokenRow,
  type TokenFilters,
} from '../../db/tables/personal-access-tokens.js';
import { AppError, badRequest, invalid, notFound } from '../../errors.js';
import { nowIso, today, tomorrow } from '../../storage/clock.js';
import { isAdmin } from '../permissions.js';
import type { Actor } from './authentication.js';
import { digestSecret, newSecret } from './secrets.js';
import { getUser } from './users.js';
import { TOKEN_SCOPES, type TokenScope } from '../../entities/tokens.js';

/** Impersonation tokens may not carry sudo (SPEC: Impersonation token scopes). */
export const IMPERSONATION_SCOPES: readonly TokenScope[] = ['api', 'read_user'];

/** GitLab 17's longest token lifetime: a resource token without an expiry gets this many days. */
export const MAX_LIFETIME_DAYS = 365;
/** A rotated token lives a week unless told otherwise (GitLab's RotateService EXPIRATION_PERIOD). */
const ROTATION_DAYS = 7;

/** The date `days` days after `date` (both YYYY-MM-DD). */
export const addDays = (date: string, days: number): string => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** An expiry from today up to the longest lifetime (GitLab's PersonalAccessToken validations). */
export function assertTokenExpiry(expiresAt: string): void {
  if (expiresAt < today()) throw invalid({ expires_at: ['must be in the future'] });
  const max = addDays(today(), MAX_LIFETIME_DAYS);
  if (expiresAt > max) throw invalid({ expires_at: [`must be before ${max}`] });
}

/**
 * Revokes a token and makes its successor with the same user, name and scopes, expiring on
 * `expiresAt` or in a week (GitLab's PersonalAccessTokens::RotateService), in the caller's
 * transaction; 400 `Token already revoked` for a revoked one.
 */
export function rotateTokenRow(db: Db, old: PersonalAccessTokenRow, expiresAt: string | undefined): { row: PersonalAccessTokenRow; token: string } {
  if (old.revoked) throw badRequest('400 Bad request - Token already revoked');
  const expiry = expiresAt ?? addDays(today(), ROTATION_DAYS);
  assertTokenExpiry(expiry);
  revokePersonalAccessToken(db, old.id);
  return createPersonalAccessToken(db, old.user_id, { name: old.name, scopes: JSON.parse(old.scopes) as string[], expiresAt: expiry, impersonation: !!old.impersonation });
}

/**
 * POST /personal_access_tokens/:id/rotate (GitLab 16.0+) and /self/rotate (16.10+): the caller's
 * own token, or any for an admin; GitLab's bare 404 for another user's or a missing one.
 */
export function rotatePersonalAccessToken(db: Db, actor: Actor, id: number | 'self', expiresAt: string | undefined): { row: PersonalAccessTokenRow; token: string } {
  return inTransaction(db, () => {
    const token = findPersonalAccessToken(db, id === 'self' ? selfTokenId(actor) : id);
    if (!token || (id !== 'self' && token.user_id !== actor.user.id && !isAdmin(actor))) throw notFound();
    return rotateTokenRow(db, token, expiresAt);
  });
}

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

/**
 * An admin's POST /users/:id/personal_access_tokens (GitLab 13.6+): a personal access token for the
 * user with scopes from TOKEN_SCOPES; the secret is answered once, only its digest is kept.
 */
export function createUserPersonalAccessToken(
  db: Db,
  userId: number,
  options: { name: string; scopes: readonly string[]; expiresAt: string | null },
  allowedScopes: readonly string[] = TOKEN_SCOPES,
): { row: PersonalAccessTokenRow; token: string } {
  if (!options.scopes.length || options.scopes.some((scope) => !allowedScopes.includes(scope))) {
    throw badRequest('scopes does not have a valid value');
  }
  if (!options.name.trim()) throw invalid({ name: ["can't be blank"] });
  if (options.name.length > 255) throw invalid({ name: ['is too long (maximum is 255 characters)'] });
  if (options.expiresAt !== null && options.expiresAt < today()) throw invalid({ expires_at: ['must be in the future'] });
  return inTransaction(db, () => {
    getUser(db, userId);
    return createPersonalAccessToken(db, userId, options);
  });
}

/**
 * POST /user/personal_access_tokens (GitLab 16.5+): a signed-in user's own token, limited to the
 * `k8s_proxy` scope for safety as GitLab limits it (it opens no API route here, where no agent
 * server runs: only reading and revoking itself), expiring tomorrow unless told otherwise.
 */
export function createOwnLimitedToken(db: Db, actor: Actor, options: { name: string; scopes: readonly string[]; expiresAt: string | null }): { row: PersonalAccessTokenRow; token: string } {
  return createUserPersonalAccessToken(db, actor.user.id, { ...options, expiresAt: options.expiresAt ?? tomorrow() }, LIMITED_TOKEN_SCOPES);
}

/** The scopes a user may give a token of their own through the API. */
export const LIMITED_TOKEN_SCOPES = ['k8s_proxy'] as const;

/**
 * GET /personal_access_tokens (GitLab's finder): an admin lists every token, or one user's with
 * `user_id` (404 for an unknown user); anyone else their own personal tokens (impersonation tokens
 * are the admins'), and 401 for `user_id` naming someone else.
 */
export function listPersonalAccessTokens(db: Db, actor: Actor, filters: TokenFilters, page: Page): Paged<PersonalAccessTokenRow> {
  if (isAdmin(actor)) {
    if (filters.userId !== undefined) getUserOr404(db, filters.userId);
    return listPersonalAccessTokenRows(db, filters, today(), page);
  }
  if (filters.userId !== undefined && filters.userId !== actor.user.id) throw new AppError('unauthorized');
  return listPersonalAccessTokenRows(db, { ...filters, userId: actor.user.id, personalOnly: true }, today(), page);
}

function getUserOr404(db: Db, userId: number): void {
  try {
    getUser(db, userId);
  } catch {
    // GitLab answers a bare 404 here (not_found! without a resource).
    throw notFound();
  }
}

/** The token the id names, or (`self`) the one the request came with: admins any (404 when missing), others their own (401 otherwise, as GitLab). */
export function getPersonalAccessToken(db: Db, actor: Actor, id: number | 'self'): PersonalAccessTokenRow {
  const token = findPersonalAccessToken(db, id === 'self' ? selfTokenId(actor) : id);
  if (isAdmin(actor) && !token) throw notFound();
  // The token a request came with is the caller's to see, under sudo too.
  if (!token || (id !== 'self' && token.user_id !== actor.user.id && !isAdmin(actor))) throw new AppError('unauthorized');
  return token;
}

/** Revokes a token (204): admins any, others their own (400 `Bad request` otherwise, as GitLab's RevokeService); 404 when missing. */
export function revokePersonalAccessTokenById(db: Db, actor: Actor, id: number | 'self'): void {
  inTransaction(db, () => {
    const token = findPersonalAccessToken(db, id === 'self' ? selfTokenId(actor) : id);
    if (!token) throw notFound();
    if (id !== 'self' && token.user_id !== actor.user.id && !isAdmin(actor)) throw badRequest('400 Bad request');
    revokePersonalAccessToken(db, token.id);
  });
}

/** The token behind the request; a session or OAuth token has none (404). */
function selfTokenId(actor: Actor): number {
  if (actor.tokenId === undefined) throw notFound('Personal Access Token');
  return actor.tokenId;
}
