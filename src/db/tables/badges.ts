import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

/** A badge of a project (project_id) or of a group (group_id); exactly one is set. */
export interface BadgeRow {
  id: number;
  project_id: number | null;
  group_id: number | null;
  name: string | null;
  link_url: string;
  image_url: string;
  created_at: string;
  updated_at: string;
}

/** What a create or update writes. */
export type BadgeValues = Pick<BadgeRow, 'name' | 'link_url' | 'image_url'>;

/** The group a project is in and every group above it (empty for a user's namespace: no badges there). */
const PROJECT_GROUP_CHAIN = `WITH RECURSIVE chain (id) AS (
    SELECT namespace_id FROM projects WHERE id = @project
    UNION SELECT n.parent_id FROM namespaces n JOIN chain ON n.id = chain.id WHERE n.parent_id IS NOT NULL
  ) SELECT id FROM chain`;

export function findBadge(db: Db, id: number): BadgeRow | undefined {
  return prepare(db, 'SELECT * FROM badges WHERE id = ?').get(id) as BadgeRow | undefined;
}

/** A project's badges and those of its groups (GitLab's Project#badges), oldest first, optionally of one name. */
export function listProjectBadgesOf(db: Db, projectId: number, name: string | undefined, page: Page): Paged<BadgeRow> {
  const byName = name === undefined ? '' : ' AND name = @name';
  return selectPage(
    db,
    '*',
    `FROM badges WHERE (project_id = @project OR group_id IN (${PROJECT_GROUP_CHAIN}))${byName}`,
    'id',
    [name === undefined ? { project: projectId } : { project: projectId, name }],
    page,
  );
}

/** Whether the badge is the project's own or one of its groups'. */
export function isBadgeOfProject(db: Db, badge: BadgeRow, projectId: number): boolean {
  if (badge.project_id !== null) return badge.project_id === projectId;
  return prepare(db, `SELECT 1 FROM (${PROJECT_GROUP_CHAIN}) WHERE id = @group`).get({ project: projectId, group: badge.group_id }) !== undefined;
}

export function listGroupBadgesOf(db: Db, groupId: number, name: string | undefined, page: Page): Paged<BadgeRow> {
  const byName = name === undefined ? '' : ' AND name = @name';
  return selectPage(db, '*', `FROM badges WHERE group_id = @group${byName}`, 'id', [name === undefined ? { group: groupId } : { group: groupId, name }], page);
}

export function insertBadge(db: Db, owner: { project_id: number } | { group_id: number }, values: BadgeValues, now: string): number {
  return Number(
    prepare(
      db,
      `INSERT INTO badges (project_id, group_id, name, link_url, image_url, created_at, updated_at)
       VALUES (@project_id, @group_id, @name, @link_url, @image_url, @now, @now)`,
    ).run({ project_id: null, group_id: null, ...owner, ...values, now }).lastInsertRowid,
  );
}

export function updateBadgeRow(db: Db, id: number, values: BadgeValues, now: string): void {
  prepare(db, 'UPDATE badges SET name = @name, link_url = @link_url, image_url = @image_url, updated_at = @now WHERE id = @id').run({ ...values, id, now });
}

export function deleteBadgeRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM badges WHERE id = ?').run(id);
}
