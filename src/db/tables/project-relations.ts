import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import type { UserRow } from './users.js';
import type { NamespaceRow } from './namespaces.js';
import type { ProjectRow } from './projects.js';

/**
 * Batched reads for serializing a page of projects: each is one query for the whole page, so a
 * list costs the same few queries at any page size. Ids travel as one JSON array parameter,
 * which keeps each SQL text (and its prepared statement) fixed.
 */
const IDS = (param: string) => `(SELECT value FROM json_each(${param}))`;

const byKey = <K, V>(rows: V[], key: (row: V) => K) => new Map(rows.map((row) => [key(row), row]));

export function namespacesByIds(db: Db, ids: readonly number[]): Map<number, NamespaceRow> {
  if (!ids.length) return new Map();
  const rows = prepare(db, `SELECT * FROM namespaces WHERE id IN ${IDS('?')}`).all(JSON.stringify([...new Set(ids)])) as NamespaceRow[];
  return byKey(rows, (row) => row.id);
}

export function usersByIds(db: Db, ids: readonly number[]): Map<number, UserRow> {
  if (!ids.length) return new Map();
  const rows = prepare(db, `SELECT * FROM users WHERE id IN ${IDS('?')}`).all(JSON.stringify([...new Set(ids)])) as UserRow[];
  return byKey(rows, (row) => row.id);
}

export function projectsByIds(db: Db, ids: readonly number[]): Map<number, ProjectRow> {
  if (!ids.length) return new Map();
  const rows = prepare(db, `SELECT * FROM projects WHERE id IN ${IDS('?')}`).all(JSON.stringify([...new Set(ids)])) as ProjectRow[];
  return byKey(rows, (row) => row.id);
}

/** Each project's full path (`namespace/path`), for the URLs of what lives in it (issues, milestones). */
export function projectFullPaths(db: Db, ids: readonly number[]): Map<number, string> {
  if (!ids.length) return new Map();
  const rows = prepare(db, `SELECT p.id, n.full_path || '/' || p.path AS full_path FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE p.id IN ${IDS('?')}`).all(
    JSON.stringify([...new Set(ids)]),
  ) as { id: number; full_path: string }[];
  return new Map(rows.map((row) => [row.id, row.full_path]));
}

/** How many forks each project has. */
export function forkCounts(db: Db, ids: readonly number[]): Map<number, number> {
  if (!ids.length) return new Map();
  const rows = prepare(db, `SELECT forked_from_project_id AS id, count(*) AS forks FROM projects WHERE forked_from_project_id IN ${IDS('?')} GROUP BY forked_from_project_id`).all(
    JSON.stringify(ids),
  ) as { id: number; forks: number }[];
  return new Map(rows.map((row) => [row.id, row.forks]));
}

export interface SharedGroupRow {
  project_id: number;
  group_id: number;
  group_name: string;
  group_full_path: string;
  group_access: number;
}

/** The groups each project is shared with, oldest share first. */
export function sharedGroups(db: Db, ids: readonly number[]): Map<number, SharedGroupRow[]> {
  const out = new Map<number, SharedGroupRow[]>();
  if (!ids.length) return out;
  const rows = prepare(
    db,
    `SELECT l.project_id, l.group_id, n.name AS group_name, n.full_path AS group_full_path, l.group_access
     FROM project_group_links l JOIN namespaces n ON n.id = l.group_id WHERE l.project_id IN ${IDS('?')} ORDER BY l.id`,
  ).all(JSON.stringify(ids)) as SharedGroupRow[];
  for (const row of rows) out.set(row.project_id, [...(out.get(row.project_id) ?? []), row]);
  return out;
}

/** The user's direct membership level on each project (GitLab's `permissions.project_access`). */
export function directProjectLevels(db: Db, userId: number, ids: readonly number[], today: string): Map<number, number> {
  if (!ids.length) return new Map();
  const rows = prepare(
    db,
    `SELECT project_id AS id, access_level AS level FROM project_members
     WHERE user_id = ? AND project_id IN ${IDS('?')} AND (expires_at IS NULL OR expires_at >= ?)`,
  ).all(userId, JSON.stringify(ids), today) as { id: number; level: number }[];
  return new Map(rows.map((row) => [row.id, row.level]));
}

/**
 * The user's group membership level for each group namespace, inherited from ancestors
 * (GitLab's `permissions.group_access`); user namespaces have none.
 */
export function groupLevelsOfNamespaces(db: Db, userId: number, namespaceIds: readonly number[], today: string): Map<number, number> {
  if (!namespaceIds.length) return new Map();
  const rows = prepare(
    db,
    `WITH RECURSIVE chain(start, id, parent_id) AS (
       SELECT n.id, n.id, n.parent_id FROM namespaces n WHERE n.kind = 'group' AND n.id IN ${IDS('@ids')}
       UNION ALL SELECT c.start, n.id, n.parent_id FROM namespaces n JOIN chain c ON n.id = c.parent_id)
     SELECT c.start AS id, max(m.access_level) AS level FROM group_members m JOIN chain c ON m.namespace_id = c.id
     WHERE m.user_id = @user AND (m.expires_at IS NULL OR m.expires_at >= @today) GROUP BY c.start`,
  ).all({ ids: JSON.stringify([...new Set(namespaceIds)]), user: userId, today }) as { id: number; level: number }[];
  return new Map(rows.map((row) => [row.id, row.level]));
}
