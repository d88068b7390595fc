import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import {
  findIdentityOwner,
  findUserByAnyEmail,
  findUserById,
  findUserByUsername,
  insertUser,
  updateUser as updateUserRow,
  upsertIdentity,
  type UserColumns,
  type UserRow,
} from '../../db/tables/users.js';
import { deleteSecondaryEmail } from '../../db/tables/emails.js';
import { findNamespaceByPath, insertUserNamespace, renameUserNamespace } from '../../db/tables/namespaces.js';
import { conflict, forbidden, invalid, notFound, refused } from '../../errors.js';
import { visibleState } from '../../entities/users.js';
import { selectPage, type Page, type Paged } from '../../db/page.js';
import { nowIso } from '../../storage/clock.js';
import { hashPassword } from './secrets.js';
import { validateUserAttributes, type UserAttributes } from './validation.js';

export interface UserInput extends UserAttributes {
  admin?: boolean;
  can_create_group?: boolean;
  external?: boolean;
  skip_confirmation?: boolean;
  shared_runners_minutes_limit?: number;
  extern_uid?: string;
  provider?: string;
  avatar_path?: string;
}

export interface UserFilters {
  active?: boolean;
  blocked?: boolean;
  search?: string;
  username?: string;
  externUid?: string;
  provider?: string;
  external?: boolean;
  createdBefore?: string;
  createdAfter?: string;
  customAttributes?: Record<string, string>;
  /** Banned users are listed to administrators only. */
  withBanned?: boolean;
  orderBy: 'id' | 'name' | 'username' | 'created_at' | 'updated_at';
  sort: 'asc' | 'desc';
  /** Admins match emails by substring; everyone else only by the exact address, so emails do not leak. */
  searchEmails: 'substring' | 'exact';
}

/** The user with that id, or 404 `User`. */
export function getUser(db: Db, id: number): UserRow {
  const user = findUserById(db, id);
  if (!user || user.ghost) throw notFound('User');
  return user;
}

/** The user a path names by id or by username (SPEC: `:id` or `:user_id` may be either), or 404 `User`. */
export function getUserByIdOrUsername(db: Db, raw: string): UserRow {
  if (/^\d{1,15}$/.test(raw)) return getUser(db, Number(raw));
  const user = findUserByUsername(db, raw);
  if (!user || user.ghost) throw notFound('User');
  return user;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/** Lists users with the SPEC's filters, paged in SQL. */
export function listUsers(db: Db, filters: UserFilters, page: Page): Paged<UserRow> {
  const where: string[] = ['users.ghost = 0'];
  const params: unknown[] = [];
  if (filters.active) where.push("users.state = 'active'");
  if (filters.blocked) where.push("users.state IN ('blocked', 'ldap_blocked') AND users.banned_at IS NULL");
  // GitLab's UsersFinder hides banned users from everyone but administrators.
  if (!filters.withBanned) where.push('users.banned_at IS NULL');
  if (filters.username !== undefined) {
    where.push('users.username = ? COLLATE NOCASE');
    params.push(filters.username);
  }
  if (filters.search) {
    const like = `%${escapeLike(filters.search)}%`;
    const emailMatch = filters.searchEmails === 'substring' ? "users.email LIKE ? ESCAPE '\\'" : 'users.email = ? COLLATE NOCASE';
    where.push(`(users.name LIKE ? ESCAPE '\\' OR users.username LIKE ? ESCAPE '\\' OR ${emailMatch})`);
    params.push(like, like, filters.searchEmails === 'substring' ? like : filters.search);
  }
  if (filters.externUid !== undefined && filters.provider !== undefined) {
    where.push('users.id IN (SELECT user_id FROM identities WHERE provider = ? AND extern_uid = ? COLLATE NOCASE)');
    params.push(filters.provider, filters.externUid);
  }
  if (filters.external) where.push('users.external = 1');
  if (filters.createdBefore) {
    where.push('users.created_at < ?');
    params.push(filters.createdBefore);
  }
  if (filters.createdAfter) {
    where.push('users.created_at > ?');
    params.push(filters.createdAfter);
  }
  for (const [key, value] of Object.entries(filters.customAttributes ?? {})) {
    where.push('EXISTS (SELECT 1 FROM user_custom_attributes a WHERE a.user_id = users.id AND a.key = ? AND a.value = ?)');
    params.push(key, value);
  }
  const fromWhere = `FROM users WHERE ${where.join(' AND ')}`;
  const order = `users.${filters.orderBy} ${filters.sort.toUpperCase()}${filters.orderBy === 'id' ? '' : `, users.id ${filters.sort.toUpperCase()}`}`;
  return selectPage<UserRow>(db, 'users.*', fromWhere, order, params, page);
}

/** Taken usernames and emails are 409s with GitLab's message (decision 12); other validation is a 400. */
function assertAvailable(db: Db, attrs: UserInput, selfId: number | null): void {
  if (attrs.username !== undefined) {
    const owner = findUserByUsername(db, attrs.username);
    const namespace = findNamespaceByPath(db, attrs.username);
    // A username is also the path of the user's namespace, so it may not clash with a group's path either.
    const ownNamespace = namespace?.kind === 'user' && selfId !== null && namespace.owner_id === selfId;
    if ((owner && owner.id !== selfId) || (namespace && !ownNamespace)) throw conflict('Username has already been taken');
  }
  if (attrs.email !== undefined) {
    const owner = findUserByAnyEmail(db, attrs.email);
    if (owner && owner.id !== selfId) throw conflict('Email has already been taken');
  }
  if (attrs.extern_uid !== undefined && attrs.provider !== undefined) {
    const owner = findIdentityOwner(db, attrs.provider, attrs.extern_uid);
    if (owner !== undefined && owner !== selfId) throw conflict('Identities extern uid has already been taken');
  }
}

function assertValid(attrs: UserInput): void {
  const errors = validateUserAttributes(attrs);
  if (Object.keys(errors).length) throw invalid(errors);
}

function columnsOf(attrs: UserInput): UserColumns {
  const columns: UserColumns = {};
  for (const key of ['username', 'email', 'name', 'bio', 'location', 'skype', 'linkedin', 'twitter', 'website_url', 'organization', 'projects_limit', 'shared_runners_minutes_limit', 'avatar_path'] as const) {
    if (attrs[key] !== undefined) (columns as Record<string, unknown>)[key] = attrs[key];
  }
  for (const key of ['admin', 'can_create_group', 'external'] as const) {
    if (attrs[key] !== undefined) columns[key] = attrs[key] ? 1 : 0;
  }
  return columns;
}

/** Creates a user (admin API, the first boot's root, the CLI). Without a password the account cannot sign in until one is set. */
export async function createUser(db: Db, attrs: UserInput & { username: string; email: string; name: string }): Promise<UserRow> {
  assertValid(attrs);
  const passwordHash = attrs.password !== undefined ? await hashPassword(attrs.password) : null;
  return inTransaction(db, () => {
    assertAvailable(db, attrs, null);
    const now = nowIso();
    const id = insertUser(db, {
      ...columnsOf(attrs),
      username: attrs.username,
      email: attrs.email,
      name: attrs.name,
      password_hash: passwordHash,
      confirmed_at: attrs.skip_confirmation ? now : null,
      created_at: now,
      updated_at: now,
    });
    insertUserNamespace(db, id, attrs.username, attrs.name, now);
    if (attrs.extern_uid !== undefined && attrs.provider !== undefined) upsertIdentity(db, id, attrs.provider, attrs.extern_uid, now);
    return findUserById(db, id)!;
  });
}

/** Updates a user; a new password set through the API must be changed at the next sign-in (SPEC: PUT /users/:id). */
export async function updateUser(db: Db, id: number, attrs: UserInput): Promise<UserRow> {
  assertValid(attrs);
  // A missing user is a 404 before any password is hashed.
  if (attrs.password !== undefined) getUser(db, id);
  const passwordHash = attrs.password !== undefined ? await hashPassword(attrs.password) : null;
  return inTransaction(db, () => {
    const user = getUser(db, id);
    assertAvailable(db, attrs, id);
    const now = nowIso();
    const columns: UserColumns = { ...columnsOf(attrs), updated_at: now };
    if (passwordHash !== null) {
      columns.password_hash = passwordHash;
      columns.password_expires_at = now;
    }
    if (attrs.skip_confirmation) columns.confirmed_at = now;
    updateUserRow(db, id, columns);
    if (attrs.email !== undefined) deleteSecondaryEmail(db, id, attrs.email);
    // The row as written: no trigger or default changes a users row on update.
    const updated: UserRow = { ...user, ...columns };
    if (attrs.username !== undefined || attrs.name !== undefined) renameUserNamespace(db, id, updated.username, updated.name, now);
    if (attrs.extern_uid !== undefined && attrs.provider !== undefined) upsertIdentity(db, id, attrs.provider, attrs.extern_uid, now);
    return updated;
  });
}

const LDAP_BLOCKED = 'LDAP blocked users cannot be modified by the API';

/** Blocks an active user; false when the user was already blocked (decision 7). */
export function blockUser(db: Db, id: number): boolean {
  return inTransaction(db, () => {
    const user = getUser(db, id);
    if (user.state === 'ldap_blocked') throw forbidden(LDAP_BLOCKED);
    if (user.state === 'blocked') return false;
    updateUserRow(db, id, { state: 'blocked', updated_at: nowIso() });
    return true;
  });
}

/** Unblocks a user blocked (or banned) through the API; a block set by LDAP synchronisation is kept (403). */
export function unblockUser(db: Db, id: number): boolean {
  return inTransaction(db, () => {
    const user = getUser(db, id);
    if (user.state === 'ldap_blocked') throw forbidden('LDAP blocked users cannot be unblocked by the API');
    if (user.state === 'active') return false;
    updateUserRow(db, id, { state: 'active', banned_at: null, updated_at: nowIso() });
    return true;
  });
}

/**
 * Bans an active user (GitLab's Users::BanService): they are blocked from signing in and using
 * tokens and hidden from non-admin user lists. Any other state is GitLab's 403
 * `You cannot ban <state> users.`
 */
export function banUser(db: Db, id: number): void {
  inTransaction(db, () => {
    const user = getUser(db, id);
    if (user.state !== 'active') throw refused(`You cannot ban ${visibleState(user)} users.`);
    const now = nowIso();
    updateUserRow(db, id, { state: 'blocked', banned_at: now, updated_at: now });
  });
}

/** Lifts a ban (GitLab's Users::UnbanService); a user who is not banned is a 403 `You cannot unban <state> users.` */
export function unbanUser(db: Db, id: number): void {
  inTransaction(db, () => {
    const user = getUser(db, id);
    if (!user.banned_at) throw refused(`You cannot unban ${visibleState(user)} users.`);
    updateUserRow(db, id, { state: 'active', banned_at: null, updated_at: nowIso() });
  });
}

/** Users active on or after `from`, oldest activity first (SPEC: GET /user/activities). */
export function listActivities(db: Db, from: string, page: Page): Paged<Pick<UserRow, 'username' | 'last_activity_on'>> {
  return selectPage(db, 'username, last_activity_on', 'FROM users WHERE last_activity_on >= ? AND ghost = 0', 'last_activity_on, id', [from], page);
}
