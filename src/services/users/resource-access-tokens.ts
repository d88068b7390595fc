import { randomBytes } from 'node:crypto';
import { inTransaction, type Db } from '../../db/connection.js';
import { ACCESS } from '../../db/levels.js';
import { insertMember, updateMember } from '../../db/tables/members.js';
import { insertUserNamespace } from '../../db/tables/namespaces.js';
import type { Page, Paged } from '../../db/page.js';
import { findResourceTokenRow, listResourceTokenRows, type ResourceTokenRow } from '../../db/tables/personal-access-tokens.js';
import { insertUser } from '../../db/tables/users.js';
import { AppError, badRequest, invalid, notFound } from '../../errors.js';
import { nowIso, today } from '../../storage/clock.js';
import { MEMBER_TABLES, type MemberSource } from '../members/members.js';
import { can, groupAccess, isAdmin, projectAccess } from '../permissions.js';
import type { Actor } from './authentication.js';
import { removeUserRecord } from './delete-user.js';
import { addDays, assertTokenExpiry, createPersonalAccessToken, MAX_LIFETIME_DAYS, rotateTokenRow } from './personal-access-tokens.js';

/**
 * Project and group access tokens (issue 26, item 7; GitLab's ResourceAccessTokens services): each
 * token belongs to a bot user of its own (`user_type` project_bot, named as GitLab names them) who
 * is a member of the project or group at the token's access level until the token expires. The
 * token is a personal access token of the bot, stored as a digest like every other. Revoking it
 * removes the bot, its membership and its tokens, as GitLab deletes the bot user.
 */

/** The scopes GitLab 17 offers access tokens; only api, read_api and self_rotate open API routes here. */
export const RESOURCE_TOKEN_SCOPES = [
  'api', 'read_api', 'read_repository', 'write_repository', 'read_registry', 'write_registry', 'create_runner', 'manage_runner', 'ai_features', 'k8s_proxy', 'self_rotate',
] as const;

/** The levels a token may hold: owner only on groups (a project membership stops at maintainer here, GITLAB-NOTES 1.5). */
export const RESOURCE_TOKEN_LEVELS: Record<MemberSource['kind'], readonly number[]> = {
  project: [ACCESS.guest, ACCESS.reporter, ACCESS.developer, ACCESS.maintainer],
  group: [ACCESS.guest, ACCESS.reporter, ACCESS.developer, ACCESS.maintainer, ACCESS.owner],
};

const sourceIdOf = (source: MemberSource) => (source.kind === 'group' ? source.group.id : source.project.id);

/** Whether the actor manages the source's access tokens: project maintainers, group owners, admins. */
function mayManage(db: Db, actor: Actor, source: MemberSource): boolean {
  return source.kind === 'group' ? can(db, actor, 'manage_group_access_tokens', source.group) : can(db, actor, 'manage_project_access_tokens', source.project);
}

/** GitLab answers `unauthorized!` (401) to whoever may not read a source's tokens. */
function assertMayManage(db: Db, actor: Actor, source: MemberSource): void {
  if (!mayManage(db, actor, source)) throw new AppError('unauthorized');
}

export function listResourceAccessTokens(db: Db, actor: Actor, source: MemberSource, state: 'active' | 'inactive' | undefined, page: Page): Paged<ResourceTokenRow> {
  assertMayManage(db, actor, source);
  return listResourceTokenRows(db, MEMBER_TABLES[source.kind], sourceIdOf(source), state, today(), page);
}

/** One token of the source: 401 for whoever may not read them, then GitLab's 404 text. */
export function getResourceAccessToken(db: Db, actor: Actor, source: MemberSource, tokenId: number): ResourceTokenRow {
  assertMayManage(db, actor, source);
  return findToken(db, source, tokenId);
}

function findToken(db: Db, source: MemberSource, tokenId: number): ResourceTokenRow {
  const row = findResourceTokenRow(db, MEMBER_TABLES[source.kind], sourceIdOf(source), tokenId);
  if (!row) throw notFound(`Could not find ${source.kind} access token with token_id: ${tokenId}`);
  return row;
}

export interface ResourceTokenInput {
  readonly name: string;
  readonly scopes: readonly string[];
  readonly expiresAt?: string;
  readonly accessLevel?: number;
}

/**
 * Creates the token with its bot (201; the secret answered once). 400 as GitLab's CreateService:
 * for a caller who may not (`User does not have permission to create <kind> access token`) or
 * who would give the bot more access than they have; scopes and level are checked at the route.
 */
export function createResourceAccessToken(db: Db, actor: Actor, source: MemberSource, input: ResourceTokenInput, host: string): { row: ResourceTokenRow; token: string } {
  if (!mayManage(db, actor, source)) throw badRequest(`400 Bad request - User does not have permission to create ${source.kind} access token`);
  const accessLevel = input.accessLevel ?? ACCESS.maintainer;
  const own = source.kind === 'group' ? groupAccess(db, actor, source.group) : projectAccess(db, actor, source.project);
  if (!isAdmin(actor) && accessLevel > own) throw badRequest(`400 Bad request - ${actor.user.name} cannot add a bot with an access level higher than their own`);
  if (!input.name.trim()) throw invalid({ name: ["can't be blank"] });
  if (input.name.length > 255) throw invalid({ name: ['is too long (maximum is 255 characters)'] });
  const expiresAt = input.expiresAt ?? addDays(today(), MAX_LIFETIME_DAYS);
  assertTokenExpiry(expiresAt);
  return inTransaction(db, () => {
    const now = nowIso();
    const username = `${source.kind}_${sourceIdOf(source)}_bot_${randomBytes(16).toString('hex')}`;
    const botId = insertUser(db, { username, email: `${username}@noreply.${host}`, name: input.name, user_type: 'project_bot', confirmed_at: now, projects_limit: 0, can_create_group: 0, created_at: now, updated_at: now });
    insertUserNamespace(db, botId, username, input.name, now);
    insertMember(db, MEMBER_TABLES[source.kind], { sourceId: sourceIdOf(source), userId: botId, accessLevel, expiresAt, createdById: actor.user.id, now });
    const { row, token } = createPersonalAccessToken(db, botId, { name: input.name, scopes: input.scopes, expiresAt });
    return { row: { ...row, access_level: accessLevel }, token };
  });
}

/** Revokes the token (204): it goes with its bot user, whose contributions move to the ghost user. 400 for a caller who may not. */
export function revokeResourceAccessToken(db: Db, actor: Actor, source: MemberSource, tokenId: number): void {
  inTransaction(db, () => {
    const row = findToken(db, source, tokenId);
    if (!mayManage(db, actor, source)) throw badRequest(`400 Bad request - ${actor.user.name} cannot delete ${source.kind} access token`);
    removeUserRecord(db, row.user_id, { hardDelete: false });
  });
}

/**
 * Rotates the token (200): the old one is revoked and a new one with the same name and scopes is
 * made for the same bot, expiring on `expiresAt` or in a week; the bot's membership follows the
 * new expiry. 400 `Token already revoked` for a revoked one.
 */
export function rotateResourceAccessToken(db: Db, actor: Actor, source: MemberSource, tokenId: number, expiresAt: string | undefined): { row: ResourceTokenRow; token: string } {
  assertMayManage(db, actor, source);
  return inTransaction(db, () => {
    const old = findToken(db, source, tokenId);
    const rotated = rotateTokenRow(db, old, expiresAt);
    updateMember(db, MEMBER_TABLES[source.kind], sourceIdOf(source), old.user_id, { access_level: old.access_level, expires_at: rotated.row.expires_at }, nowIso());
    return { row: { ...rotated.row, access_level: old.access_level }, token: rotated.token };
  });
}
