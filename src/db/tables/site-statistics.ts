import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

/** Row counts for GET /application/statistics, in one statement (each an indexed or full count). */
export interface SiteCounts {
  forks: number;
  issues: number;
  merge_requests: number;
  notes: number;
  ssh_keys: number;
  milestones: number;
  users: number;
  groups: number;
  projects: number;
  active_users: number;
}

export function selectSiteCounts(db: Db): SiteCounts {
  return prepare(
    db,
    `SELECT
       (SELECT count(*) FROM projects WHERE forked_from_project_id IS NOT NULL) AS forks,
       (SELECT count(*) FROM issues) AS issues,
       (SELECT count(*) FROM merge_requests) AS merge_requests,
       (SELECT count(*) FROM notes) AS notes,
       (SELECT count(*) FROM ssh_keys) + (SELECT count(*) FROM deploy_keys) AS ssh_keys,
       (SELECT count(*) FROM milestones) AS milestones,
       (SELECT count(*) FROM users) AS users,
       (SELECT count(*) FROM namespaces WHERE kind = 'group') AS groups,
       (SELECT count(*) FROM projects) AS projects,
       (SELECT count(*) FROM users WHERE state = 'active') AS active_users`,
  ).get() as SiteCounts;
}

/** What the edition's license reports: active users, and when the site began (its first user). */
export function selectLicenseFigures(db: Db): { active_users: number; since: string | null } {
  return prepare(db, "SELECT (SELECT count(*) FROM users WHERE state = 'active') AS active_users, (SELECT min(created_at) FROM users) AS since").get() as {
    active_users: number;
    since: string | null;
  };
}
