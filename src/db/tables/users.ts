import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

export interface UserRow {
  id: number;
  username: string;
  email: string;
  name: string;
  state: 'active' | 'blocked' | 'ldap_blocked';
  /** Set while the user is banned (state stays `blocked`, so nothing signs them in). */
  banned_at: string | null;
  admin: number;
  ghost: number;
  /** 'project_bot' for the bot user of a project or group access token (migration 0021). */
  user_type: 'human' | 'project_bot';
  password_hash: string | null;
  password_expires_at: string | null;
  bio: string;
  location: string;
  skype: string;
  linkedin: string;
  twitter: string;
  website_url: string;
  organization: string | null;
  projects_limit: number;
  can_create_group: number;
  external: number;
  two_factor_enabled: number;
  theme_id: number;
  color_scheme_id: number;
  shared_runners_minutes_limit: number | null;
  avatar_path: string | null;
  confirmed_at: string | null;
  last_sign_in_at: string | null;
  current_sign_in_at: string | null;
  last_activity_on: string | null;
  created_at: string;
  updated_at: string;
}

export interface IdentityRow {
  id: number;
  user_id: number;
  provider: string;
  extern_uid: string;
}

export type UserColumns = Partial<Omit<UserRow, 'id'>>;

/** Whether any user exists yet (first boot creates root only into an empty table). */
export function hasAnyUser(db: Db): boolean {
  return prepare(db, 'SELECT 1 FROM users LIMIT 1').get() !== undefined;
}

export function findUserById(db: Db, id: number): UserRow | undefined {
  return prepare(db, 'SELECT * FROM users WHERE id = ?').get(id) as UserRow | undefined;
}

/** The ghost user (GitLab's User.ghost), once one exists. */
export function findGhostUserId(db: Db): number | undefined {
  return prepare(db, 'SELECT id FROM users WHERE ghost = 1 ORDER BY id LIMIT 1').pluck().get() as number | undefined;
}

export function findUserByUsername(db: Db, username: string): UserRow | undefined {
  return prepare(db, 'SELECT * FROM users WHERE username = ? COLLATE NOCASE').get(username) as UserRow | undefined;
}

/** A user by primary or secondary email, case-insensitive. */
export function findUserByAnyEmail(db: Db, email: string): UserRow | undefined {
  return prepare(
    db,
    `SELECT * FROM users WHERE email = @email COLLATE NOCASE
     UNION ALL SELECT users.* FROM emails JOIN users ON users.id = emails.user_id WHERE emails.email = @email COLLATE NOCASE
     LIMIT 1`,
  ).get({ email }) as UserRow | undefined;
}

export function insertUser(db: Db, columns: UserColumns & Pick<UserRow, 'username' | 'email' | 'name' | 'created_at' | 'updated_at'>): number {
  const names = Object.keys(columns);
  const sql = `INSERT INTO users (${names.join(', ')}) VALUES (${names.map((name) => `@${name}`).join(', ')})`;
  return Number(prepare(db, sql).run(columns).lastInsertRowid);
}

export function updateUser(db: Db, id: number, columns: UserColumns): void {
  const names = Object.keys(columns).sort();
  if (!names.length) return;
  const sql = `UPDATE users SET ${names.map((name) => `${name} = @${name}`).join(', ')} WHERE id = @id`;
  prepare(db, sql).run({ ...columns, id });
}

/** Sets last_activity_on to `day` unless it already is: a row already up to date is not written (nor replicated). */
export function markUserActiveOn(db: Db, id: number, day: string): void {
  prepare(db, 'UPDATE users SET last_activity_on = ? WHERE id = ? AND (last_activity_on IS NULL OR last_activity_on < ?)').run(day, id, day);
}

export function deleteUserRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM users WHERE id = ?').run(id);
}

export function identitiesOf(db: Db, userIds: readonly number[]): Map<number, IdentityRow[]> {
  const byUser = new Map<number, IdentityRow[]>();
  if (!userIds.length) return byUser;
  const rows =
    userIds.length === 1
      ? (prepare(db, 'SELECT id, user_id, provider, extern_uid FROM identities WHERE user_id = ? ORDER BY id').all(userIds[0]) as IdentityRow[])
      : prepare(db, `SELECT id, user_id, provider, extern_uid FROM identities WHERE user_id IN (SELECT value FROM json_each(?)) ORDER BY id`).all(
    JSON.stringify(userIds),
  ) as IdentityRow[];
  for (const row of rows) {
    const list = byUser.get(row.user_id) ?? [];
    list.push(row);
    byUser.set(row.user_id, list);
  }
  return byUser;
}

/** Sets the user's identity for a provider, replacing an earlier uid. */
export function upsertIdentity(db: Db, userId: number, provider: string, externUid: string, now: string): void {
  prepare(
    db,
    `INSERT INTO identities (user_id, provider, extern_uid, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (user_id, provider) DO UPDATE SET extern_uid = excluded.extern_uid`,
  ).run(userId, provider, externUid, now);
}

export function findIdentityOwner(db: Db, provider: string, externUid: string): number | undefined {
  return prepare(db, 'SELECT user_id FROM identities WHERE provider = ? AND extern_uid = ? COLLATE NOCASE').pluck().get(provider, externUid) as
    | number
    | undefined;
}

/** The users with these usernames (case-insensitive, as GitLab's routes are); unknown names are left out. */
export function usersByUsernames(db: Db, usernames: readonly string[]): UserRow[] {
  if (!usernames.length) return [];
  return prepare(db, 'SELECT * FROM users WHERE username COLLATE NOCASE IN (SELECT value FROM json_each(?))').all(JSON.stringify(usernames)) as UserRow[];
}

/** Deletes the user's identity for a provider; returns whether there was one. */
export function deleteIdentity(db: Db, userId: number, provider: string): boolean {
  return prepare(db, 'DELETE FROM identities WHERE user_id = ? AND provider = ?').run(userId, provider).changes === 1;
}
