import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

/** The columns a group write may set; the rest keep their defaults. */
export interface GroupColumns {
  name?: string;
  path?: string;
  parent_id?: number | null;
  full_path?: string;
  full_name?: string;
  description?: string;
  visibility_level?: number;
  lfs_enabled?: number;
  request_access_enabled?: number;
  membership_lock?: number;
  share_with_group_lock?: number;
  shared_runners_minutes_limit?: number | null;
  avatar_path?: string | null;
  updated_at?: string;
}

export function insertGroup(db: Db, columns: GroupColumns & { name: string; path: string; full_path: string; full_name: string; created_at: string; updated_at: string }): number {
  const names = Object.keys(columns);
  const sql = `INSERT INTO namespaces (kind, ${names.join(', ')}) VALUES ('group', ${names.map((name) => `@${name}`).join(', ')})`;
  return Number(prepare(db, sql).run(columns).lastInsertRowid);
}

export function updateGroupRow(db: Db, id: number, columns: GroupColumns): void {
  const names = Object.keys(columns);
  if (!names.length) return;
  prepare(db, `UPDATE namespaces SET ${names.map((name) => `${name} = @${name}`).join(', ')} WHERE id = @id AND kind = 'group'`).run({ ...columns, id });
}

/**
 * Rewrites the full_path and full_name of every group below `groupId` after the group itself was
 * renamed: each keeps its own suffix under the new prefix.
 */
export function rewriteDescendantPaths(
  db: Db,
  groupId: number,
  from: { fullPath: string; fullName: string },
  to: { fullPath: string; fullName: string },
  now: string,
): void {
  prepare(
    db,
    `WITH RECURSIVE tree(id) AS (
       SELECT id FROM namespaces WHERE parent_id = @group
       UNION ALL SELECT n.id FROM namespaces n JOIN tree t ON n.parent_id = t.id)
     UPDATE namespaces SET
       full_path = @toPath || substr(full_path, @fromPathLength + 1),
       full_name = @toName || substr(full_name, @fromNameLength + 1),
       updated_at = @now
     WHERE id IN (SELECT id FROM tree)`,
  ).run({
    group: groupId,
    toPath: to.fullPath,
    fromPathLength: from.fullPath.length,
    toName: to.fullName,
    fromNameLength: from.fullName.length,
    now,
  });
}

/** The ids of the group and of every group below it. */
export function groupTreeIds(db: Db, groupId: number): number[] {
  return prepare(
    db,
    `WITH RECURSIVE tree(id) AS (
       SELECT @group UNION ALL SELECT n.id FROM namespaces n JOIN tree t ON n.parent_id = t.id)
     SELECT id FROM tree`,
  )
    .pluck()
    .all({ group: groupId }) as number[];
}

/** The projects that live directly in these namespaces, each with its namespace. */
export function projectsIn(db: Db, namespaceIds: readonly number[]): { id: number; namespace_id: number }[] {
  if (!namespaceIds.length) return [];
  return prepare(db, 'SELECT id, namespace_id FROM projects WHERE namespace_id IN (SELECT value FROM json_each(?)) ORDER BY id').all(
    JSON.stringify(namespaceIds),
  ) as { id: number; namespace_id: number }[];
}

/** The most open visibility among a group's direct subgroups and projects: the group may not go below it. */
export function widestChildVisibility(db: Db, groupId: number): { subgroups: number | null; projects: number | null } {
  const subgroups = prepare(db, 'SELECT max(visibility_level) FROM namespaces WHERE parent_id = ?').pluck().get(groupId) as number | null;
  const projects = prepare(db, 'SELECT max(visibility_level) FROM projects WHERE namespace_id = ?').pluck().get(groupId) as number | null;
  return { subgroups, projects };
}

/** Whether a project directly inside `namespaceId` already uses this path (a subgroup may not shadow it). */
export function projectPathTaken(db: Db, namespaceId: number, path: string): boolean {
  return prepare(db, 'SELECT 1 FROM projects WHERE namespace_id = ? AND path = ? COLLATE NOCASE').get(namespaceId, path) !== undefined;
}

/** Whether a sibling group (same parent, `exceptId` aside) already has this name, case-insensitive. */
export function groupNameTaken(db: Db, parentId: number | null, name: string, exceptId: number | null): boolean {
  return (
    prepare(db, "SELECT id FROM namespaces WHERE kind = 'group' AND parent_id IS ? AND name = ? COLLATE NOCASE AND id IS NOT ? LIMIT 1").get(parentId, name, exceptId) !==
    undefined
  );
}

/** Whether the namespace, or a group above it, forbids sharing its projects with other groups. */
export function shareWithGroupLocked(db: Db, namespaceId: number): boolean {
  return (
    prepare(
      db,
      `WITH RECURSIVE chain(id, parent_id, locked) AS (
         SELECT id, parent_id, share_with_group_lock FROM namespaces WHERE id = ?
         UNION ALL SELECT n.id, n.parent_id, n.share_with_group_lock FROM namespaces n JOIN chain c ON n.id = c.parent_id)
       SELECT 1 FROM chain WHERE locked = 1 LIMIT 1`,
    ).get(namespaceId) !== undefined
  );
}

/** Whether `groupId` is the group `namespaceId` or one of its ancestors. */
export function isGroupOrAncestor(db: Db, namespaceId: number, groupId: number): boolean {
  return (
    prepare(
      db,
      `WITH RECURSIVE chain(id, parent_id) AS (
         SELECT id, parent_id FROM namespaces WHERE id = ? AND kind = 'group'
         UNION ALL SELECT n.id, n.parent_id FROM namespaces n JOIN chain c ON n.id = c.parent_id)
       SELECT 1 FROM chain WHERE id = ?`,
    ).get(namespaceId, groupId) !== undefined
  );
}

export function deleteGroupRow(db: Db, id: number): void {
  prepare(db, "DELETE FROM namespaces WHERE id = ? AND kind = 'group'").run(id);
}

/**
 * SQL for the ids of the groups in a user's hierarchy (@user, @today): groups they belong to and
 * everything below them, groups shared with those and everything below, plus the ancestors of those and of groups holding projects they are a
 * member of (GitLab's GroupHierarchy of authorized groups: a member of a subgroup sees its parents).
 */
export const HIERARCHY_GROUP_IDS = `
  WITH RECURSIVE
    member_groups(id) AS (
      SELECT namespace_id FROM group_members m WHERE m.user_id = @user AND (m.expires_at IS NULL OR m.expires_at >= @today)
      UNION SELECT n.id FROM namespaces n JOIN member_groups g ON n.parent_id = g.id),
    shared_groups(id) AS (
      SELECT l.shared_group_id FROM group_group_links l
        WHERE l.shared_with_group_id IN (SELECT id FROM member_groups) AND (l.expires_at IS NULL OR l.expires_at >= @today)
      UNION SELECT n.id FROM namespaces n JOIN shared_groups g ON n.parent_id = g.id),
    above(id) AS (
      SELECT id FROM member_groups
      UNION SELECT id FROM shared_groups
      UNION SELECT p.namespace_id FROM project_members m JOIN projects p ON p.id = m.project_id
        WHERE m.user_id = @user AND (m.expires_at IS NULL OR m.expires_at >= @today)
      UNION SELECT n.parent_id FROM namespaces n JOIN above a ON n.id = a.id WHERE n.parent_id IS NOT NULL)
  SELECT id FROM above`;

/** SQL for the ids of groups where the user is a direct, unexpired owner (@user, @today). */
export const OWNED_GROUP_IDS = `
  SELECT namespace_id FROM group_members m WHERE m.user_id = @user AND m.access_level = 50 AND (m.expires_at IS NULL OR m.expires_at >= @today)`;

/** For each group, the distinct users who are members of it or of any group below it. */
export function countMembersWithDescendants(db: Db, groupIds: readonly number[]): Map<number, number> {
  if (!groupIds.length) return new Map();
  const rows = prepare(
    db,
    `WITH RECURSIVE tree(root, id) AS (
       SELECT value, value FROM json_each(?)
       UNION ALL SELECT t.root, n.id FROM namespaces n JOIN tree t ON n.parent_id = t.id)
     SELECT t.root AS id, count(DISTINCT m.user_id) AS members FROM tree t JOIN group_members m ON m.namespace_id = t.id GROUP BY t.root`,
  ).all(JSON.stringify(groupIds)) as { id: number; members: number }[];
  const counts = new Map(groupIds.map((id) => [id, 0]));
  for (const row of rows) counts.set(row.id, row.members);
  return counts;
}

/** The namespace, when it is a group, and every group above it, nearest first: where a project's or group's labels and milestones come from. */
export function selfAndAncestorGroupIds(db: Db, namespaceId: number): number[] {
  return prepare(
    db,
    `WITH RECURSIVE chain(id, parent_id, depth) AS (
       SELECT id, parent_id, 0 FROM namespaces WHERE id = ? AND kind = 'group'
       UNION ALL SELECT n.id, n.parent_id, c.depth + 1 FROM namespaces n JOIN chain c ON n.id = c.parent_id)
     SELECT id FROM chain ORDER BY depth`,
  )
    .pluck()
    .all(namespaceId) as number[];
}

/** Lowers these groups, and the projects directly in them, to at most `level` (a transfer under a more private parent). */
export function narrowTreeVisibility(db: Db, groupIds: readonly number[], level: number, now: string): void {
  const ids = JSON.stringify(groupIds);
  prepare(db, "UPDATE namespaces SET visibility_level = ?, updated_at = ? WHERE kind = 'group' AND visibility_level > ? AND id IN (SELECT value FROM json_each(?))").run(level, now, level, ids);
  prepare(db, 'UPDATE projects SET visibility_level = ?, updated_at = ? WHERE visibility_level > ? AND namespace_id IN (SELECT value FROM json_each(?))').run(level, now, level, ids);
}
