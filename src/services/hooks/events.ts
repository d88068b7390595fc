import type { HookFlag } from '../../db/tables/hooks.js';

/**
 * Every kind of event a project hook can be called for: the flag that switches it on and the
 * X-Gitlab-Event header GitLab 10.x sends with it. Confidential issues have their own flag and
 * share the issue header, as in GitLab.
 */
export const HOOK_EVENTS = {
  push: { flag: 'push_events', header: 'Push Hook' },
  tag_push: { flag: 'tag_push_events', header: 'Tag Push Hook' },
  issue: { flag: 'issues_events', header: 'Issue Hook' },
  confidential_issue: { flag: 'confidential_issues_events', header: 'Issue Hook' },
  merge_request: { flag: 'merge_requests_events', header: 'Merge Request Hook' },
  note: { flag: 'note_events', header: 'Note Hook' },
  job: { flag: 'job_events', header: 'Job Hook' },
  pipeline: { flag: 'pipeline_events', header: 'Pipeline Hook' },
  wiki_page: { flag: 'wiki_page_events', header: 'Wiki Page Hook' },
  release: { flag: 'releases_events', header: 'Release Hook' },
} as const satisfies Record<string, { flag: HookFlag; header: string }>;

export type HookEvent = keyof typeof HOOK_EVENTS;
