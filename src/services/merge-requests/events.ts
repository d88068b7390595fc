import type { SiteContext } from '../../site-context.js';
import { recordEvent } from '../issuables/record-events.js';
import type { MergeRequestChange } from './changes.js';

/**
 * The merge-request-change listener (changes.ts) that writes GitLab's merge request events:
 * `created` when one opens, `closed`, `reopened` and `merged` (the merge code announces it). Edits
 * and pushes write none, as in GitLab; a delete takes the merge request's events with it.
 */
export function mergeRequestEvents(ctx: SiteContext, change: MergeRequestChange): void {
  const action = eventAction(change.action);
  if (!action) return;
  const { mergeRequest } = change;
  const target = { type: 'MergeRequest', id: mergeRequest.id, iid: mergeRequest.iid, title: mergeRequest.title } as const;
  recordEvent(ctx.db, change.actor.id, { projectId: mergeRequest.target_project_id }, action === 'merged' ? { action, target } : { action, target });
}

function eventAction(action: MergeRequestChange['action']): 'created' | 'closed' | 'reopened' | 'merged' | null {
  switch (action) {
    case 'opened':
      return 'created';
    case 'closed':
    case 'reopened':
    case 'merged':
      return action;
    default:
      return null;
  }
}
