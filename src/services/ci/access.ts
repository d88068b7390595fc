import type { Db } from '../../db/connection.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { forbidden } from '../../errors.js';
import type { Actor } from '../users/authentication.js';
import { can } from '../permissions.js';

/**
 * GitLab's read_build / read_pipeline / read_commit_status: reporters and up, and anyone who may
 * read the project when its jobs are public (`public_jobs`).
 */
export function canReadBuilds(db: Db, actor: Actor | null, project: ProjectRow): boolean {
  return can(db, actor, 'read_build', project);
}

export function assertReadBuilds(db: Db, actor: Actor | null, project: ProjectRow): void {
  if (!canReadBuilds(db, actor, project)) throw forbidden();
}

/**
 * GitLab's create_commit_status / update_build: developers and up, never on an archived project.
 * That is exactly the `push` ability, so it is reused rather than duplicated.
 */
export function assertUpdateBuilds(db: Db, actor: Actor, project: ProjectRow): void {
  if (!can(db, actor, 'push_code', project)) throw forbidden();
}
