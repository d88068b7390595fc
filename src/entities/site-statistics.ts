import type { SiteCounts } from '../db/tables/site-statistics.js';

/** Rails' number_with_delimiter: "12,345". */
const delimited = (count: number) => count.toLocaleString('en-US');

/**
 * GitLab's ApplicationStatistics entity: every count a string with thousands delimiters, as GitLab
 * answers. geoforge has no snippets: always "0".
 */
export function siteStatisticsView(counts: SiteCounts) {
  return {
    forks: delimited(counts.forks),
    issues: delimited(counts.issues),
    merge_requests: delimited(counts.merge_requests),
    notes: delimited(counts.notes),
    snippets: '0',
    ssh_keys: delimited(counts.ssh_keys),
    milestones: delimited(counts.milestones),
    users: delimited(counts.users),
    projects: delimited(counts.projects),
    groups: delimited(counts.groups),
    active_users: delimited(counts.active_users),
  };
}
