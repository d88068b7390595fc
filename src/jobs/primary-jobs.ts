import { syncLdap } from '../services/groups/ldap/sync.js';
import type { SiteContext } from '../site-context.js';
import type { Job } from './schedule.js';

/**
 * Schedules that write to the replicated tables, so they run on the primary only (a secondary's
 * tables are copies; its writes would be lost at the next re-sync).
 */
export function primaryJobs(ctx: SiteContext): Job[] {
  const jobs: Job[] = [];
  const ldap = ctx.config.ldap;
  if (ldap) {
    jobs.push({
      name: 'ldap-group-sync',
      expression: '0 0 * * * *',
      run: async () => {
        const report = await syncLdap(ctx.db, ldap);
        ctx.log.info({ job: 'ldap-group-sync', ...report }, 'LDAP group sync done');
      },
    });
  }
  return jobs;
}
