import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';
import type { MemberTable } from './members.js';

/** A personal or impersonation token; only the secret's digest is stored, and it is never read back. */
export interface PersonalAccessTokenRow {
  id: number;
  user_id: number;
  name: string;
  scopes: string;
  impersonation: number;
  revoked: number;
  expires_at: string | null;
  last_used_at: string | null;
  created_at: string;
}

const COLUMNS = 'id, user_id, name, scopes, impersonation, revoked, expires_at, last_used_at, created_at';

export function insertPersonalAccessToken(db: Db, row: Omit<PersonalAccessTokenRow, 'id' | 'revoked' | 'last_used_at'> & { token_digest: string }): number {
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

/** The filters of GET /personal_access_tokens (GitLab's PersonalAccessTokensFinder); absent ones do not filter. */
export interface TokenFilters {
  readonly userId?: number;
  /** Leaves impersonation tokens out: what a non-admin lists. */
  readonly personalOnly?: boolean;
  readonly revoked?: boolean;
  readonly state?: 'active' | 'inactive';
  readonly createdBefore?: string;
  readonly createdAfter?: string;
  readonly lastUsedBefore?: string;
  readonly lastUsedAfter?: string;
  readonly expiresBefore?: string;
  readonly expiresAfter?: string;
  readonly search?: string;
}

/** Tokens matching the filters as of `today` (YYYY-MM-DD), newest first; a user's tokens through the (user_id, impersonation, id) index. */
export function listPersonalAccessTokenRows(db: Db, filters: TokenFilters, today: string, page: Page): Paged<PersonalAccessTokenRow> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...values: unknown[]) => {
    where.push(sql);
    params.push(...values);
  };
  if (filters.userId !== undefined) add('user_id = ?', filters.userId);
  if (filters.personalOnly) add('impersonation = 0');
  if (filters.revoked !== undefined) add('revoked = ?', filters.revoked ? 1 : 0);
  if (filters.state === 'active') add('revoked = 0 AND (expires_at IS NULL OR expires_at >= ?)', today);
  if (filters.state === 'inactive') add('(revoked = 1 OR expires_at < ?)', today);
  if (filters.createdBefore !== undefined) add('created_at < ?', filters.createdBefore);
  if (filters.createdAfter !== undefined) add('created_at > ?', filters.createdAfter);
  if (filters.lastUsedBefore !== undefined) add('last_used_at < ?', filters.lastUsedBefore);
  if (filters.lastUsedAfter !== undefined) add('last_used_at > ?', filters.lastUsedAfter);
  if (filters.expiresBefore !== undefined) add('expires_at < ?', filters.expiresBefore);
  if (filters.expiresAfter !== undefined) add('expires_at > ?', filters.expiresAfter);
  if (filters.search !== undefined) add("name LIKE ? ESCAPE '\\'", `%${filters.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  return selectPage(db, COLUMNS, `FROM personal_access_tokens${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, 'id DESC', params, page);
}

/** A project's or group's access token: a token of a bot user who is a member there, with the bot's access level. */
export type ResourceTokenRow = PersonalAccessTokenRow & { access_level: number };

const RESOURCE_FROM = (source: MemberTable) =>
  `FROM personal_access_tokens t JOIN users u ON u.id = t.user_id AND u.user_type = 'project_bot' JOIN ${source.table} m ON m.user_id = u.id AND m.${source.column} = ?`;
const RESOURCE_COLUMNS = COLUMNS.split(', ').map((column) => `t.${column}`).join(', ') + ', m.access_level';

/** The access tokens of one project or group, newest first; `state` as of `today` (YYYY-MM-DD) when given. */
export function listResourceTokenRows(db: Db, source: MemberTable, sourceId: number, state: 'active' | 'inactive' | undefined, today: string, page: Page): Paged<ResourceTokenRow> {
  const filter = state === 'active' ? ' WHERE t.revoked = 0 AND (t.expires_at IS NULL OR t.expires_at >= ?)' : state === 'inactive' ? ' WHERE (t.revoked = 1 OR t.expires_at < ?)' : '';
  return selectPage(db, RESOURCE_COLUMNS, `${RESOURCE_FROM(source)}${filter}`, 't.id DESC', state ? [sourceId, today] : [sourceId], page);
}

export function findResourceTokenRow(db: Db, source: MemberTable, sourceId: number, tokenId: number): ResourceTokenRow | undefined {
  return prepare(db, `SELECT ${RESOURCE_COLUMNS} ${RESOURCE_FROM(source)} WHERE t.id = ?`).get(sourceId, tokenId) as ResourceTokenRow | undefined;
}
