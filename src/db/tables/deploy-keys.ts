import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

/** A deploy key: an SSH public key enabled in projects, not tied to an account (user_id: who added it). */
export interface DeployKeyRow {
  id: number;
  user_id: number | null;
  title: string;
  key: string;
  fingerprint: string;
  fingerprint_md5: string;
  public: number;
  created_at: string;
}

/** A deploy key as one project has it: the key and the project's can_push. */
export interface ProjectDeployKeyRow extends DeployKeyRow {
  can_push: number;
}

const PROJECT_KEY_COLUMNS = 'k.*, l.can_push';
const PROJECT_KEYS = 'FROM deploy_keys_projects l JOIN deploy_keys k ON k.id = l.deploy_key_id';

export function findDeployKey(db: Db, id: number): DeployKeyRow | undefined {
  return prepare(db, 'SELECT * FROM deploy_keys WHERE id = ?').get(id) as DeployKeyRow | undefined;
}

export function findDeployKeyByFingerprint(db: Db, fingerprint: string): DeployKeyRow | undefined {
  return prepare(db, 'SELECT * FROM deploy_keys WHERE fingerprint = ?').get(fingerprint) as DeployKeyRow | undefined;
}

export function findDeployKeyByMd5(db: Db, md5: string): DeployKeyRow | undefined {
  return prepare(db, 'SELECT * FROM deploy_keys WHERE fingerprint_md5 = ?').get(md5) as DeployKeyRow | undefined;
}

/** A deploy key's enablement in one project (GitLab's DeployKeysProject). */
export interface DeployKeyProjectRow {
  id: number;
  deploy_key_id: number;
  project_id: number;
  can_push: number;
  created_at: string;
}

/** The projects a deploy key is enabled in, oldest first. */
export function deployKeyProjectsOf(db: Db, keyId: number): DeployKeyProjectRow[] {
  return prepare(db, 'SELECT * FROM deploy_keys_projects WHERE deploy_key_id = ? ORDER BY id').all(keyId) as DeployKeyProjectRow[];
}

export function insertDeployKey(db: Db, row: Omit<DeployKeyRow, 'id'>): number {
  return Number(
    prepare(
      db,
      `INSERT INTO deploy_keys (user_id, title, key, fingerprint, fingerprint_md5, public, created_at)
       VALUES (@user_id, @title, @key, @fingerprint, @fingerprint_md5, @public, @created_at)`,
    ).run(row).lastInsertRowid,
  );
}

export function updateDeployKeyTitle(db: Db, id: number, title: string): void {
  prepare(db, 'UPDATE deploy_keys SET title = ? WHERE id = ?').run(title, id);
}

export function deleteDeployKeyRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM deploy_keys WHERE id = ?').run(id);
}

/** Every deploy key of the site, oldest first (GET /deploy_keys), optionally only the public ones. */
export function listDeployKeyRows(db: Db, publicOnly: boolean, page: Page): Paged<DeployKeyRow> {
  return selectPage(db, '*', publicOnly ? 'FROM deploy_keys WHERE public = 1' : 'FROM deploy_keys', 'id', [], page);
}

/** The keys enabled in a project, in the order they were enabled. */
export function listProjectDeployKeyRows(db: Db, projectId: number, page: Page): Paged<ProjectDeployKeyRow> {
  return selectPage(db, PROJECT_KEY_COLUMNS, `${PROJECT_KEYS} WHERE l.project_id = ?`, 'l.id', [projectId], page);
}

export function findProjectDeployKey(db: Db, projectId: number, keyId: number): ProjectDeployKeyRow | undefined {
  return prepare(db, `SELECT ${PROJECT_KEY_COLUMNS} ${PROJECT_KEYS} WHERE l.project_id = ? AND l.deploy_key_id = ?`).get(projectId, keyId) as
    | ProjectDeployKeyRow
    | undefined;
}

export function findProjectDeployKeyByFingerprint(db: Db, projectId: number, fingerprint: string): ProjectDeployKeyRow | undefined {
  return prepare(db, `SELECT ${PROJECT_KEY_COLUMNS} ${PROJECT_KEYS} WHERE l.project_id = ? AND k.fingerprint = ?`).get(projectId, fingerprint) as
    | ProjectDeployKeyRow
    | undefined;
}

export function insertDeployKeyProject(db: Db, row: { deploy_key_id: number; project_id: number; can_push: number; created_at: string }): void {
  prepare(db, 'INSERT INTO deploy_keys_projects (deploy_key_id, project_id, can_push, created_at) VALUES (@deploy_key_id, @project_id, @can_push, @created_at)').run(row);
}

export function updateDeployKeyProjectCanPush(db: Db, projectId: number, keyId: number, canPush: number): void {
  prepare(db, 'UPDATE deploy_keys_projects SET can_push = ? WHERE project_id = ? AND deploy_key_id = ?').run(canPush, projectId, keyId);
}

export function deleteDeployKeyProject(db: Db, projectId: number, keyId: number): void {
  prepare(db, 'DELETE FROM deploy_keys_projects WHERE project_id = ? AND deploy_key_id = ?').run(projectId, keyId);
}

/** Whether any project still has the key enabled. */
export function isDeployKeyInUse(db: Db, keyId: number): boolean {
  return prepare(db, 'SELECT 1 FROM deploy_keys_projects WHERE deploy_key_id = ? LIMIT 1').get(keyId) !== undefined;
}

/** Whether the key is enabled in any of the projects the SQL (with its named parameters) selects. */
export function isDeployKeyInProjects(db: Db, keyId: number, projectIdsSql: string, params: Record<string, unknown>): boolean {
  return prepare(db, `SELECT 1 FROM deploy_keys_projects WHERE deploy_key_id = @key AND project_id IN (${projectIdsSql}) LIMIT 1`).get({ ...params, key: keyId }) !== undefined;
}

/** The ids of the keys enabled in a project. */
export function deployKeyIdsOfProject(db: Db, projectId: number): number[] {
  return prepare(db, 'SELECT deploy_key_id FROM deploy_keys_projects WHERE project_id = ?').pluck().all(projectId) as number[];
}
