import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

/** Memberships count until the end of their expiry date. */
const ACTIVE = (alias: string) => `(${alias}.expires_at IS NULL OR ${alias}.expires_at >= @today)`;

/**
 * A CTE `share_chain(id, parent_id, cap)` (to follow a `WITH RECURSIVE` CTE list and a comma): the
 * groups that the groups of `chain` (a CTE of ids) are shared with, and their ancestors (whose
 * members are members of the shared-with group), each with the share's group_access as a cap.
 * Shares do not chain: a group shared into a shared-with group passes nothing on, as in GitLab.
 */
const SHARE_CHAIN = (chain: string) => `,
         share_chain(id, parent_id, cap) AS (
           SELECT n.id, n.parent_id, l.group_access FROM group_group_links l JOIN namespaces n ON n.id = l.shared_with_group_id
           WHERE l.shared_group_id IN (SELECT id FROM ${chain}) AND ${ACTIVE('l')}
           UNION ALL SELECT n.id, n.parent_id, s.cap FROM namespaces n JOIN share_chain s ON n.id = s.parent_id)`;

/**
 * The user's access to a group: the highest membership in the group or any ancestor (inherited
 * down the tree), or through a group the tree is shared with (capped by that share's group_access).
 */
export function groupAccessLevel(db: Db, userId: number, groupId: number, today: string): number {
  return (
    (prepare(
      db,
      `WITH RECURSIVE chain(id, parent_id) AS (
         SELECT id, parent_id FROM namespaces WHERE id = @group
         UNION ALL SELECT n.id, n.parent_id FROM namespaces n JOIN chain c ON n.id = c.parent_id)
         ${SHARE_CHAIN('chain')}
       SELECT max(level) FROM (
         SELECT m.access_level AS level FROM group_members m JOIN chain c ON m.namespace_id = c.id WHERE m.user_id = @user AND ${ACTIVE('m')}
         UNION ALL SELECT min(m.access_level, s.cap) FROM group_members m JOIN share_chain s ON m.namespace_id = s.id WHERE m.user_id = @user AND ${ACTIVE('m')})`,
    )
      .pluck()
      .get({ group: groupId, user: userId, today }) as number | null) ?? 0
  );
}

/** Whether the user is a member of a group below this one (directly or through a share), or of a project in the tree: they may see the group. */
export function hasAccessBelowGroup(db: Db, userId: number, groupId: number, today: string): boolean {
  return (
    prepare(
      db,
      `WITH RECURSIVE tree(id) AS (
         SELECT @group UNION ALL SELECT n.id FROM namespaces n JOIN tree t ON n.parent_id = t.id)
       SELECT 1 WHERE EXISTS (SELECT 1 FROM group_members m JOIN tree t ON m.namespace_id = t.id WHERE m.user_id = @user AND ${ACTIVE('m')})
          OR EXISTS (SELECT 1 FROM group_group_links l JOIN tree t ON l.shared_group_id = t.id
                     WHERE ${ACTIVE('l')} AND l.shared_with_group_id IN (${MEMBER_GROUP_IDS}))
          OR EXISTS (SELECT 1 FROM project_members m JOIN projects p ON p.id = m.project_id JOIN tree t ON p.namespace_id = t.id
                     WHERE m.user_id = @user AND ${ACTIVE('m')})`,
    ).get({ group: groupId, user: userId, today }) !== undefined
  );
}

/**
 * The user's access to a project: the highest of a direct membership, ownership of its user
 * namespace (owner), an inherited group membership, each group it is shared with (capped by
 * that share's group_access), and each group its group tree is shared with (capped likewise).
 */
export function projectAccessLevel(db: Db, userId: number, project: { id: number; namespace_id: number }, today: string): number {
  return (
    (prepare(
      db,
      `WITH RECURSIVE
         ns_chain(id, parent_id) AS (
           SELECT id, parent_id FROM namespaces WHERE id = @namespace
           UNION ALL SELECT n.id, n.parent_id FROM namespaces n JOIN ns_chain c ON n.id = c.parent_id),
         link_chain(id, parent_id, cap) AS (
           SELECT n.id, n.parent_id, l.group_access FROM project_group_links l JOIN namespaces n ON n.id = l.group_id
           WHERE l.project_id = @project AND ${ACTIVE('l')}
           UNION ALL SELECT n.id, n.parent_id, c.cap FROM namespaces n JOIN link_chain c ON n.id = c.parent_id)
         ${SHARE_CHAIN('ns_chain')}
       SELECT max(level) FROM (
         SELECT m.access_level AS level FROM project_members m WHERE m.project_id = @project AND m.user_id = @user AND ${ACTIVE('m')}
         UNION ALL SELECT 50 FROM namespaces WHERE id = @namespace AND kind = 'user' AND owner_id = @user
         UNION ALL SELECT m.access_level FROM group_members m JOIN ns_chain c ON m.namespace_id = c.id WHERE m.user_id = @user AND ${ACTIVE('m')}
         UNION ALL SELECT min(m.access_level, c.cap) FROM group_members m JOIN link_chain c ON m.namespace_id = c.id WHERE m.user_id = @user AND ${ACTIVE('m')}
         UNION ALL SELECT min(m.access_level, s.cap) FROM group_members m JOIN share_chain s ON m.namespace_id = s.id WHERE m.user_id = @user AND ${ACTIVE('m')}
       )`,
    )
      .pluck()
      .get({ project: project.id, namespace: project.namespace_id, user: userId, today }) as number | null) ?? 0
  );
}

/**
 * SQL for the ids of every project the user is authorized on, with its parameters named @user
 * and @today: their own namespace, memberships, groups and their subgroups, and shares (of
 * projects and of groups). Its size follows the user's memberships, never the projects table.
 */
export const AUTHORIZED_PROJECT_IDS = projectIdsWithAccessAtLeast('0');

/**
 * SQL for the ids of the projects where the user's access is at least `level` (a parameter name
 * such as '@reporter', with @user and @today): the sources of projectAccessLevel, each held
 * to the level (a share counts at the lower of the membership and the share's group_access).
 */
export function projectIdsWithAccessAtLeast(level: string): string {
  return `
  WITH RECURSIVE
    member_groups(id) AS (
      SELECT namespace_id FROM group_members m WHERE m.user_id = @user AND m.access_level >= ${level} AND ${ACTIVE('m')}
      UNION SELECT n.id FROM namespaces n JOIN member_groups g ON n.parent_id = g.id),
    leveled_groups(id) AS (
      SELECT id FROM member_groups
      UNION SELECT l.shared_group_id FROM group_group_links l
        WHERE l.shared_with_group_id IN (SELECT id FROM member_groups) AND l.group_access >= ${level} AND ${ACTIVE('l')}
      UNION SELECT n.id FROM namespaces n JOIN leveled_groups g ON n.parent_id = g.id)
  SELECT p.id FROM projects p WHERE p.namespace_id IN (SELECT id FROM leveled_groups)
  UNION SELECT p.id FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE n.kind = 'user' AND n.owner_id = @user
  UNION SELECT m.project_id FROM project_members m WHERE m.user_id = @user AND m.access_level >= ${level} AND ${ACTIVE('m')}
  UNION SELECT l.project_id FROM project_group_links l WHERE l.group_id IN (SELECT id FROM member_groups) AND l.group_access >= ${level} AND ${ACTIVE('l')}`;
}

/** SQL for the ids of every group the user belongs to, directly or through an ancestor (@user, @today). */
export const MEMBER_GROUP_IDS = `
  WITH RECURSIVE user_groups(id) AS (
    SELECT namespace_id FROM group_members m WHERE m.user_id = @user AND ${ACTIVE('m')}
    UNION SELECT n.id FROM namespaces n JOIN user_groups g ON n.parent_id = g.id)
  SELECT id FROM user_groups`;

/** projectAccessLevel for a page of projects in one query: the same sources, grouped by project. */
export function projectAccessLevels(db: Db, userId: number, projectIds: readonly number[], today: string): Map<number, number> {
  if (!projectIds.length) return new Map();
  const rows = prepare(
    db,
    `WITH RECURSIVE
       page(id, namespace_id) AS (SELECT id, namespace_id FROM projects WHERE id IN (SELECT value FROM json_each(@ids))),
       ns_chain(project_id, id, parent_id) AS (
         SELECT page.id, n.id, n.parent_id FROM page JOIN namespaces n ON n.id = page.namespace_id
         UNION ALL SELECT c.project_id, n.id, n.parent_id FROM namespaces n JOIN ns_chain c ON n.id = c.parent_id),
       link_chain(project_id, id, parent_id, cap) AS (
         SELECT l.project_id, n.id, n.parent_id, l.group_access FROM project_group_links l JOIN namespaces n ON n.id = l.group_id
         WHERE l.project_id IN (SELECT id FROM page) AND ${ACTIVE('l')}
         UNION ALL SELECT c.project_id, n.id, n.parent_id, c.cap FROM namespaces n JOIN link_chain c ON n.id = c.parent_id),
       share_chain(project_id, id, parent_id, cap) AS (
         SELECT c.project_id, n.id, n.parent_id, l.group_access FROM group_group_links l JOIN ns_chain c ON l.shared_group_id = c.id
         JOIN namespaces n ON n.id = l.shared_with_group_id WHERE ${ACTIVE('l')}
         UNION ALL SELECT s.project_id, n.id, n.parent_id, s.cap FROM namespaces n JOIN share_chain s ON n.id = s.parent_id)
     SELECT project_id AS id, max(level) AS level FROM (
       SELECT m.project_id, m.access_level AS level FROM project_members m WHERE m.project_id IN (SELECT id FROM page) AND m.user_id = @user AND ${ACTIVE('m')}
       UNION ALL SELECT page.id, 50 FROM page JOIN namespaces n ON n.id = page.namespace_id WHERE n.kind = 'user' AND n.owner_id = @user
       UNION ALL SELECT c.project_id, m.access_level FROM group_members m JOIN ns_chain c ON m.namespace_id = c.id WHERE m.user_id = @user AND ${ACTIVE('m')}
       UNION ALL SELECT c.project_id, min(m.access_level, c.cap) FROM group_members m JOIN link_chain c ON m.namespace_id = c.id WHERE m.user_id = @user AND ${ACTIVE('m')}
       UNION ALL SELECT s.project_id, min(m.access_level, s.cap) FROM group_members m JOIN share_chain s ON m.namespace_id = s.id WHERE m.user_id = @user AND ${ACTIVE('m')}
     ) GROUP BY project_id`,
  ).all({ ids: JSON.stringify(projectIds), user: userId, today }) as { id: number; level: number }[];
  return new Map(rows.map((row) => [row.id, row.level]));
}

/**
 * SQL for the users with access to a project (@project, @namespace, @today): direct members,
 * members of its group and the group's ancestors, and members of the groups it or its group tree
 * is shared with (and their ancestors), as GitLab's project team.
 */
export const PROJECT_TEAM_USER_IDS = `
  WITH RECURSIVE
    ns_chain(id, parent_id) AS (
      SELECT id, parent_id FROM namespaces WHERE id = @namespace AND kind = 'group'
      UNION ALL SELECT n.id, n.parent_id FROM namespaces n JOIN ns_chain c ON n.id = c.parent_id),
    link_chain(id, parent_id) AS (
      SELECT n.id, n.parent_id FROM project_group_links l JOIN namespaces n ON n.id = l.group_id WHERE l.project_id = @project AND ${ACTIVE('l')}
      UNION ALL SELECT n.id, n.parent_id FROM namespaces n JOIN link_chain c ON n.id = c.parent_id)
    ${SHARE_CHAIN('ns_chain')}
  SELECT m.user_id FROM project_members m WHERE m.project_id = @project AND ${ACTIVE('m')}
  UNION SELECT m.user_id FROM group_members m WHERE m.namespace_id IN (SELECT id FROM share_chain) AND ${ACTIVE('m')}
  UNION SELECT m.user_id FROM group_members m WHERE m.namespace_id IN (SELECT id FROM ns_chain) AND ${ACTIVE('m')}
  UNION SELECT m.user_id FROM group_members m WHERE m.namespace_id IN (SELECT id FROM link_chain) AND ${ACTIVE('m')}`;
