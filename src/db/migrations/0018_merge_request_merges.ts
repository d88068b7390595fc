import type { Migration } from '../migrate.js';

/**
 * What merging needs beyond migration 0013 (issue 15, items 5-6): the primary's background check
 * finds the open merge requests whose mergeability is not known yet (after a restart, or a check
 * that a stop cut short) through a partial index, so the sweep reads only those rows however many
 * merge requests there are.
 */
export const mergeRequestMerges: Migration = {
  version: 18,
  name: 'merge_request_merges',
  sql: `
CREATE INDEX merge_requests_unchecked ON merge_requests (id) WHERE state = 'opened' AND merge_status = 'unchecked';
`,
};
