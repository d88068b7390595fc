import type { HookOwner, HookRow } from '../db/tables/hooks.js';
import { flag, isoTime } from './column-values.js';

/**
 * ProjectHook (SPEC: Keys, emails, tokens, hooks; GITLAB-NOTES 2.2), or GroupHook (ee) with
 * `group_id` in place of `project_id`. The token is write-only and never shown.
 */
export function hook<O extends HookOwner>(owner: O, row: HookRow<O>) {
  const ownerColumn = `${owner}_id` as const;
  return {
    id: row.id,
    url: row.url,
    [ownerColumn]: row[ownerColumn],
    push_events: flag(row.push_events),
    issues_events: flag(row.issues_events),
    confidential_issues_events: flag(row.confidential_issues_events),
    merge_requests_events: flag(row.merge_requests_events),
    tag_push_events: flag(row.tag_push_events),
    note_events: flag(row.note_events),
    job_events: flag(row.job_events),
    pipeline_events: flag(row.pipeline_events),
    wiki_page_events: flag(row.wiki_page_events),
    releases_events: flag(row.releases_events),
    enable_ssl_verification: flag(row.enable_ssl_verification),
    created_at: isoTime(row.created_at),
  };
}
