import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

export interface ProjectRow {
  id: number;
  namespace_id: number;
  name: string;
  path: string;
  description: string | null;
  visibility_level: number;
  default_branch: string;
  creator_id: number | null;
  issues_enabled: number;
  merge_requests_enabled: number;
  jobs_enabled: number;
  wiki_enabled: number;
  snippets_enabled: number;
  container_registry_enabled: number;
  shared_runners_enabled: number;
  lfs_enabled: number;
  request_access_enabled: number;
  public_jobs: number;
  only_allow_merge_if_pipeline_succeeds: number;
  only_allow_merge_if_all_discussions_are_resolved: number;
  resolve_outdated_diff_discussions: number;
  printing_merge_request_link_enabled: number;
  ci_config_path: string | null;
  repository_storage: string;
  approvals_before_merge: number;
  archived: number;
  star_count: number;
  /** Opened issues, kept by the issue services (GitLab's counter cache). */
  open_issues_count: number;
  merge_requests_count: number;
  forked_from_project_id: number | null;
  import_url: string | null;
  import_status: 'none' | 'scheduled' | 'started' | 'finished' | 'failed';
  import_error: string | null;
  runners_token: string;
  avatar_path: string | null;
  last_activity_at: string;
  created_at: string;
  updated_at: string;
}

export function findProjectById(db: Db, id: number): ProjectRow | undefined {
  return prepare(db, 'SELECT * FROM projects WHERE id = ?').get(id) as ProjectRow | undefined;
}

/** A project by `namespace/full/path/project`, case-insensitive as GitLab's routes are. */
export function findProjectByFullPath(db: Db, fullPath: string): ProjectRow | undefined {
  const cut = fullPath.lastIndexOf('/');
  if (cut <= 0) return undefined;
  return prepare(
    db,
    'SELECT p.* FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE n.full_path = ? COLLATE NOCASE AND p.path = ? COLLATE NOCASE',
  ).get(fullPath.slice(0, cut), fullPath.slice(cut + 1)) as ProjectRow | undefined;
}

/** Columns a caller may set; id is assigned by SQLite. */
export type ProjectColumns = Partial<Omit<ProjectRow, 'id'>>;

export function insertProject(db: Db, columns: ProjectColumns & Pick<ProjectRow, 'namespace_id' | 'name' | 'path' | 'runners_token' | 'last_activity_at' | 'created_at' | 'updated_at'>): number {
  const names = Object.keys(columns).sort();
  const sql = `INSERT INTO projects (${names.join(', ')}) VALUES (${names.map((name) => `@${name}`).join(', ')})`;
  return Number(prepare(db, sql).run(columns).lastInsertRowid);
}

export function updateProjectRow(db: Db, id: number, columns: ProjectColumns): void {
  const names = Object.keys(columns).sort();
  if (!names.length) return;
  prepare(db, `UPDATE projects SET ${names.map((name) => `${name} = @${name}`).join(', ')} WHERE id = @id`).run({ ...columns, id });
}

/** Moves last_activity_at to `at` unless it already is after `since` (GitLab resets it at most once an hour). */
export function touchProjectActivity(db: Db, id: number, at: string, since: string): void {
  prepare(db, 'UPDATE projects SET last_activity_at = ? WHERE id = ? AND last_activity_at <= ?').run(at, id, since);
}

/** Deletes the row; members, shares, stars and custom attributes go with it through foreign keys. */
export function deleteProjectRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM projects WHERE id = ?').run(id);
}

/** Which of the name and path are already used by another project of the namespace (case-insensitive). */
export function takenInNamespace(db: Db, namespaceId: number, name: string, path: string, exceptId: number | null): { name: boolean; path: boolean } {
  const row = prepare(
    db,
    `SELECT max(name = @name COLLATE NOCASE) AS name, max(path = @path COLLATE NOCASE) AS path FROM projects
     WHERE namespace_id = @namespace AND id IS NOT @except AND (name = @name COLLATE NOCASE OR path = @path COLLATE NOCASE)`,
  ).get({ namespace: namespaceId, name, path, except: exceptId }) as { name: number | null; path: number | null };
  return { name: row.name === 1, path: row.path === 1 };
}

/** Projects whose import (fork or URL) is scheduled or was running, oldest first. */
export function unfinishedImportIds(db: Db): number[] {
  return prepare(db, "SELECT id FROM projects WHERE import_status IN ('scheduled', 'started') ORDER BY id").pluck().all() as number[];
}

/** Projects in the user's personal namespace, which count against their projects_limit. */
export function countPersonalProjects(db: Db, userId: number): number {
  return prepare(db, "SELECT count(*) FROM projects p JOIN namespaces n ON n.id = p.namespace_id WHERE n.kind = 'user' AND n.owner_id = ?")
    .pluck()
    .get(userId) as number;
}

export function insertProjectMember(db: Db, member: { project_id: number; user_id: number; access_level: number; created_by_id: number | null; now: string }): void {
  prepare(
    db,
    `INSERT INTO project_members (project_id, user_id, access_level, created_by_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (project_id, user_id) DO UPDATE SET access_level = max(access_level, excluded.access_level), updated_at = excluded.updated_at`,
  ).run(member.project_id, member.user_id, member.access_level, member.created_by_id, member.now, member.now);
}

export function hasStarred(db: Db, userId: number, projectId: number): boolean {
  return prepare(db, 'SELECT 1 FROM project_stars WHERE user_id = ? AND project_id = ?').get(userId, projectId) !== undefined;
}

/** Adds or removes a star and keeps star_count in step; both in the caller's transaction. */
export function setStar(db: Db, userId: number, projectId: number, starred: boolean, now: string): void {
  if (starred) prepare(db, 'INSERT INTO project_stars (project_id, user_id, created_at) VALUES (?, ?, ?)').run(projectId, userId, now);
  else prepare(db, 'DELETE FROM project_stars WHERE user_id = ? AND project_id = ?').run(userId, projectId);
  prepare(db, 'UPDATE projects SET star_count = (SELECT count(*) FROM project_stars WHERE project_id = @id) WHERE id = @id').run({ id: projectId });
}

export interface ProjectGroupLinkRow {
  id: number;
  project_id: number;
  group_id: number;
  group_access: number;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export function findGroupLink(db: Db, projectId: number, groupId: number): ProjectGroupLinkRow | undefined {
  return prepare(db, 'SELECT * FROM project_group_links WHERE project_id = ? AND group_id = ?').get(projectId, groupId) as ProjectGroupLinkRow | undefined;
}

export function insertGroupLink(db: Db, link: Omit<ProjectGroupLinkRow, 'id'>): ProjectGroupLinkRow {
  const id = Number(
    prepare(db, 'INSERT INTO project_group_links (project_id, group_id, group_access, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(
      link.project_id,
      link.group_id,
      link.group_access,
      link.expires_at,
      link.created_at,
      link.updated_at,
    ).lastInsertRowid,
  );
  return { id, ...link };
}

export function deleteGroupLink(db: Db, id: number): void {
  prepare(db, 'DELETE FROM project_group_links WHERE id = ?').run(id);
}

/** The groups the project is shared with at `minAccess` or more (GET /projects/:id/groups with_shared). */
export function sharedGroupIds(db: Db, projectId: number, minAccess: number): number[] {
  return prepare(db, 'SELECT group_id FROM project_group_links WHERE project_id = ? AND group_access >= ? ORDER BY group_id').pluck().all(projectId, minAccess) as number[];
}
