import type { GroupHookRow } from '../db/tables/group-hooks.js';
import type { ProjectHookRow } from '../db/tables/project-hooks.js';
import { flag, isoTime } from './column-values.js';

/** ProjectHook (SPEC: Keys, emails, tokens, hooks; GITLAB-NOTES 2.2). The token is write-only and never shown. */
export function projectHook(row: ProjectHookRow) {
  return {
    id: row.id,
    url: row.url,
    project_id: row.project_id,
    ...hookSettings(row),
  };
}

/** GroupHook (ee): the project hook's fields with `group_id` in place of `project_id`; the token is never shown. */
export function groupHook(row: GroupHookRow) {
  return {
    id: row.id,
    url: row.url,
    group_id: row.group_id,
    ...hookSettings(row),
  };
}

/** What project and group hooks share after their owner: the events they take, SSL verification, creation time. */
function hookSettings(row: ProjectHookRow | GroupHookRow) {
  return {
    push_events: flag(row.push_events),
    issues_events: flag(row.issues_events),
    confidential_issues_events: flag(row.confidential_issues_events),
    merge_requests_events: flag(row.merge_requests_events),
    tag_push_events: flag(row.tag_push_events),
    note_events: flag(row.note_events),
    job_events: flag(row.job_events),
    pipeline_events: flag(row.pipeline_events),
    wiki_page_events: flag(row.wiki_page_events),
    enable_ssl_verification: flag(row.enable_ssl_verification),
    created_at: isoTime(row.created_at),
  };
}
