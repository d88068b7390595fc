import type { SystemHookRow } from '../db/tables/system-hooks.js';
import { flag, isoTime } from './column-values.js';

/**
 * A system hook as GitLab 17's API::Entities::Hook shows it. The token is write-only; geoforge
 * never disables a failing hook (alert_status `executable`) and has no branch filter, URL
 * variables or custom headers, so those show their empty values.
 */
export function systemHookEntity(row: SystemHookRow) {
  return {
    id: row.id,
    url: row.url,
    name: row.name,
    description: row.description,
    created_at: isoTime(row.created_at),
    push_events: flag(row.push_events),
    tag_push_events: flag(row.tag_push_events),
    merge_requests_events: flag(row.merge_requests_events),
    repository_update_events: flag(row.repository_update_events),
    enable_ssl_verification: flag(row.enable_ssl_verification),
    alert_status: 'executable',
    disabled_until: null,
    url_variables: [],
    push_events_branch_filter: null,
    branch_filter_strategy: 'wildcard',
    custom_headers: [],
  };
}
