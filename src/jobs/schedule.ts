import type { Config, Role } from '../config.js';
import type { GeoRuntime, PrimaryGeo, SecondaryGeo } from '../geo/runtime.js';
import { syncLdap } from '../services/groups/ldap/sync.js';
import { pruneHookLogs } from '../services/hooks/prune-logs.js';
import { scheduleUncheckedMergeRequests } from '../services/merge-requests/mergeability.js';
import type { SiteContext } from '../site-context.js';
import { startJobs, type Job } from './start-jobs.js';

/** What a job of each role runs against. */
interface RoleSite {
  primary: { readonly ctx: SiteContext; readonly geo: PrimaryGeo };
  secondary: { readonly ctx: SiteContext; readonly geo: SecondaryGeo };
}

interface ScheduledJob<R extends Role> {
  readonly name: string;
  /**
   * The role of the site it runs on. A job that writes replicated tables runs on the primary only:
   * a secondary's tables are copies, and its writes would be lost at the next re-sync.
   */
  readonly role: R;
  /** When it runs, from the config: a node-cron expression (six fields below a minute), or null when it is off. */
  readonly when: (config: Config) => string | null;
  /** Runs once when the site starts too. */
  readonly atStart?: boolean;
  readonly run: (site: RoleSite[R]) => void | Promise<void>;
}

/** A six-field expression that fires every `seconds` seconds (1-59). */
const everySeconds = (seconds: number): string => `*/${seconds} * * * * *`;

/** Every scheduled job of a site: its name (in logs), role, schedule and the function it runs. */
const SCHEDULE: readonly (ScheduledJob<'primary'> | ScheduledJob<'secondary'>)[] = [
  { name: 'ldap-group-sync', role: 'primary', when: (config) => (config.ldap ? '0 0 * * * *' : null), run: ({ ctx }) => syncLdapGroups(ctx) },
  { name: 'webhook-logs-prune', role: 'primary', when: () => '0 17 * * * *', run: ({ ctx }) => void pruneHookLogs(ctx.db) },
  { name: 'geo-heartbeat', role: 'primary', when: (config) => everySeconds(config.geo.heartbeatSeconds), run: ({ geo }) => geo.heartbeat() },
  { name: 'geo-prune-event-log', role: 'primary', when: () => '0 * * * * *', run: ({ geo }) => void geo.pruneEventLog() },
  // At start too: a primary upgraded with existing projects lists them within seconds, not a minute.
  { name: 'geo-repository-states', role: 'primary', when: () => '30 * * * * *', atStart: true, run: ({ geo }) => geo.fillRepositoryStates() },
  // Merge requests left `unchecked` (a restart cut their background check short) are checked again.
  { name: 'merge-requests-unchecked', role: 'primary', when: () => '15 * * * * *', atStart: true, run: ({ ctx }) => scheduleUncheckedMergeRequests(ctx) },
  // An old primary that comes back learns it was replaced; a new one tells the others its epoch.
  { name: 'geo-epoch-exchange', role: 'primary', when: (config) => everySeconds(config.geo.statusIntervalSeconds), run: ({ geo }) => geo.exchangeEpochs() },
  { name: 'geo-status-report', role: 'secondary', when: (config) => everySeconds(config.geo.statusIntervalSeconds), run: ({ geo }) => geo.reportStatus() },
  { name: 'geo-backfill', role: 'secondary', when: (config) => everySeconds(config.geo.backfillSeconds), run: ({ geo }) => geo.backfill() },
  { name: 'geo-reverify', role: 'secondary', when: (config) => everySeconds(config.geo.backfillSeconds), run: ({ geo }) => geo.reverify() },
];

/** Starts the jobs of the site's role. The returned stop ends them and waits for the runs made at start. */
export function startSchedule(ctx: SiteContext, geo: GeoRuntime): () => Promise<void> {
  const jobs: Job[] = [];
  for (const job of SCHEDULE) {
    const expression = job.when(ctx.config);
    const run = forSite(job, ctx, geo);
    if (expression !== null && run !== null) jobs.push({ name: job.name, expression, atStart: job.atStart ?? false, run });
  }
  return startJobs(jobs, ctx.log);
}

/** The job's run bound to this site; null when the job is for the other role. */
function forSite(job: ScheduledJob<'primary'> | ScheduledJob<'secondary'>, ctx: SiteContext, geo: GeoRuntime): Job['run'] | null {
  if (job.role === 'primary' && geo.role === 'primary') return () => job.run({ ctx, geo });
  if (job.role === 'secondary' && geo.role === 'secondary') return () => job.run({ ctx, geo });
  return null;
}

async function syncLdapGroups(ctx: SiteContext): Promise<void> {
  if (!ctx.config.ldap) return;
  const report = await syncLdap(ctx.db, ctx.config.ldap);
  ctx.log.info({ job: 'ldap-group-sync', ...report }, 'LDAP group sync done');
}
