import type { NamespaceRow } from './namespaces.js';
import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';
import type { UserRow } from './users.js';

/** Where one kind of source keeps its members: a group's or a project's table. */
export type MemberTable =
  | { readonly table: 'group_members'; readonly column: 'namespace_id' }
  | { readonly table: 'project_members'; readonly column: 'project_id' };

export interface MembershipColumns {
  access_level: number;
  expires_at: string | null;
}

/** A member as listed: the user's row plus the membership's level and expiry. */
export type MemberRow = UserRow & MembershipColumns;

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);

/** The direct members of one source, oldest membership first, optionally matching `query` in name or username. */
export function selectMembers(db: Db, source: MemberTable, sourceId: number, query: string | undefined, page: Page): Paged<MemberRow> {
  const params: unknown[] = [sourceId];
  let fromWhere = `FROM ${source.table} m JOIN users u ON u.id = m.user_id WHERE m.${source.column} = ?`;
  if (query) {
    const like = `%${escapeLike(query)}%`;
    fromWhere += " AND (u.name LIKE ? ESCAPE '\\' OR u.username LIKE ? ESCAPE '\\')";
    params.push(like, like);
  }
  return selectPage<MemberRow>(db, 'u.*, m.access_level, m.expires_at', fromWhere, 'm.id', params, page);
}

export function findMember(db: Db, source: MemberTable, sourceId: number, userId: number): MemberRow | undefined {
  return prepare(
    db,
    `SELECT u.*, m.access_level, m.expires_at FROM ${source.table} m JOIN users u ON u.id = m.user_id WHERE m.${source.column} = ? AND m.user_id = ?`,
  ).get(sourceId, userId) as MemberRow | undefined;
}

/** When a membership last changed (its own row, not the user's): what a conditional delete compares. */
export function selectMembershipUpdatedAt(db: Db, source: MemberTable, sourceId: number, userId: number): string | undefined {
  const row = prepare(db, `SELECT updated_at FROM ${source.table} WHERE ${source.column} = ? AND user_id = ?`).get(sourceId, userId) as { updated_at: string } | undefined;
  return row?.updated_at;
}

export function insertMember(
  db: Db,
  source: MemberTable,
  member: { sourceId: number; userId: number; accessLevel: number; expiresAt: string | null; createdById: number; now: string },
): void {
  prepare(
    db,
    `INSERT INTO ${source.table} (${source.column}, user_id, access_level, expires_at, created_by_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(member.sourceId, member.userId, member.accessLevel, member.expiresAt, member.createdById, member.now, member.now);
}

export function updateMember(db: Db, source: MemberTable, sourceId: number, userId: number, columns: MembershipColumns, now: string): void {
  prepare(db, `UPDATE ${source.table} SET access_level = ?, expires_at = ?, updated_at = ? WHERE ${source.column} = ? AND user_id = ?`).run(
    columns.access_level,
    columns.expires_at,
    now,
    sourceId,
    userId,
  );
}

export function deleteMember(db: Db, source: MemberTable, sourceId: number, userId: number): void {
  prepare(db, `DELETE FROM ${source.table} WHERE ${source.column} = ? AND user_id = ?`).run(sourceId, userId);
}

/**
 * How many users other than `userId`'s own membership in this group own it, directly or through
 * an ancestor, with an unexpired membership: a group must keep at least one owner.
 */
export function countOtherGroupOwners(db: Db, groupId: number, userId: number, today: string): number {
  return prepare(
    db,
    `WITH RECURSIVE chain(id, parent_id) AS (
       SELECT id, parent_id FROM namespaces WHERE id = @group
       UNION ALL SELECT n.id, n.parent_id FROM namespaces n JOIN chain c ON n.id = c.parent_id)
     SELECT count(DISTINCT m.user_id) FROM group_members m JOIN chain c ON m.namespace_id = c.id
     WHERE m.access_level = 50 AND (m.expires_at IS NULL OR m.expires_at >= @today) AND NOT (m.namespace_id = @group AND m.user_id = @user)`,
  )
    .pluck()
    .get({ group: groupId, user: userId, today }) as number;
}

/**
 * The first group the user owns directly with no other direct owner (GitLab's solo_owned_groups),
 * or undefined; asked again after each deletion, since deleting a group takes its subgroups along.
 */
export function firstGroupSolelyOwnedBy(db: Db, userId: number): NamespaceRow | undefined {
  return prepare(
    db,
    `SELECT n.* FROM group_members m JOIN namespaces n ON n.id = m.namespace_id
     WHERE m.user_id = ? AND m.access_level = 50
       AND NOT EXISTS (SELECT 1 FROM group_members o WHERE o.namespace_id = m.namespace_id AND o.access_level = 50 AND o.user_id <> m.user_id)
     ORDER BY n.id LIMIT 1`,
  ).get(userId) as NamespaceRow | undefined;
}

/** Whether this group namespace, or a group above it, locks membership to the group's own members (EE). */
export function membershipLockedAbove(db: Db, namespaceId: number): boolean {
  return (
    prepare(
      db,
      `WITH RECURSIVE chain(id, parent_id, locked) AS (
         SELECT id, parent_id, membership_lock FROM namespaces WHERE id = ? AND kind = 'group'
         UNION ALL SELECT n.id, n.parent_id, n.membership_lock FROM namespaces n JOIN chain c ON n.id = c.parent_id)
       SELECT 1 FROM chain WHERE locked = 1`,
    ).get(namespaceId) !== undefined
  );
}

/**
 * Every member of a source with what they inherit: for a group, its ancestors' members; for a
 * project, the members of its namespace's group chain. Each user once, at their highest level.
 */
export function selectMembersWithInherited(
  db: Db,
  source: { kind: 'group'; groupId: number } | { kind: 'project'; projectId: number; namespaceId: number },
  query: string | undefined,
  page: Page,
): Paged<MemberRow> {
  const named = source.kind === 'group' ? { ns: source.groupId, project: null } : { ns: source.namespaceId, project: source.projectId };
  const params: unknown[] = [named];
  let filter = '';
  if (query) {
    const like = `%${escapeLike(query)}%`;
    filter = " AND (u.name LIKE ? ESCAPE '\\' OR u.username LIKE ? ESCAPE '\\')";
    params.push(like, like);
  }
  const fromWhere = `FROM (
      WITH RECURSIVE chain(id, parent_id) AS (
        SELECT id, parent_id FROM namespaces WHERE id = @ns AND kind = 'group'
        UNION ALL SELECT n.id, n.parent_id FROM namespaces n JOIN chain c ON n.id = c.parent_id)
      -- With a single max(), SQLite takes expires_at from the row holding the highest level.
      SELECT user_id, max(access_level) AS access_level, expires_at FROM (
        SELECT m.user_id, m.access_level, m.expires_at FROM group_members m JOIN chain c ON m.namespace_id = c.id
        UNION ALL SELECT m.user_id, m.access_level, m.expires_at FROM project_members m WHERE m.project_id = @project)
      GROUP BY user_id) m
    JOIN users u ON u.id = m.user_id WHERE 1${filter}`;
  return selectPage<MemberRow>(db, 'u.*, m.access_level, m.expires_at', fromWhere, 'u.id', params, page);
}

/** The ids of the group's direct members (whom an `@group` mention reaches). */
export function groupMemberIds(db: Db, groupId: number): number[] {
  return prepare(db, 'SELECT user_id FROM group_members WHERE namespace_id = ? ORDER BY user_id').pluck().all(groupId) as number[];
}

/** One of a user's memberships, of a project or a group (GitLab's Membership: source_type Project or Namespace). */
export interface UserMembershipRow {
  source_id: number;
  source_name: string;
  source_type: 'Project' | 'Namespace';
  access_level: number;
}

/** A user's memberships, groups' and projects' or one kind, oldest first, paged in SQL. */
export function pageUserMemberships(db: Db, userId: number, type: 'Project' | 'Namespace' | undefined, page: Page): Paged<UserMembershipRow> {
  const parts = [];
  if (type !== 'Project') {
    parts.push(`SELECT n.id AS source_id, n.name AS source_name, 'Namespace' AS source_type, m.access_level, m.created_at, m.id
                FROM group_members m JOIN namespaces n ON n.id = m.namespace_id WHERE m.user_id = @user`);
  }
  if (type !== 'Namespace') {
    parts.push(`SELECT p.id AS source_id, p.name AS source_name, 'Project' AS source_type, m.access_level, m.created_at, m.id
                FROM project_members m JOIN projects p ON p.id = m.project_id WHERE m.user_id = @user`);
  }
  return selectPage<UserMembershipRow>(db, 'source_id, source_name, source_type, access_level', `FROM (${parts.join(' UNION ALL ')})`, 'created_at, source_type, id', [{ user: userId }], page);
}
