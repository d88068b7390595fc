import type { Db } from '../../db/connection.js';
import { selectLicenseFigures, selectSiteCounts, type SiteCounts } from '../../db/tables/site-statistics.js';

/** GET /application/statistics: exact counts (GitLab estimates large tables; SQLite counts are cheap enough here). */
export function siteStatistics(db: Db): SiteCounts {
  return selectSiteCounts(db);
}

/** The figures the ee edition's license object shows. */
export function licenseFigures(db: Db): { active_users: number; since: string | null } {
  return selectLicenseFigures(db);
}
