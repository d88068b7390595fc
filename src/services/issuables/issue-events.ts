import type { SiteContext } from '../../site-context.js';
import type { IssueChange } from './changes.js';
import { recordEvent } from './record-events.js';

/**
 * The issue-change listener (changes.ts) that writes GitLab's issue events: `created` when an
 * issue opens (a move opens one in the target project), `closed` when it closes (a move closes
 * the issue it leaves, if open), `reopened`. Edits write none, as in GitLab; a delete takes the
 * issue's events with it (issue-removal.ts).
 */
export function issueEvents(ctx: SiteContext, change: IssueChange): void {
  const action = eventAction(change);
  if (!action) return;
  const { issue } = change;
  recordEvent(ctx.db, change.actor.id, { projectId: change.project.id }, { action, target: { type: 'Issue', id: issue.id, iid: issue.iid, title: issue.title } });
}

function eventAction(change: IssueChange): 'created' | 'closed' | 'reopened' | null {
  switch (change.action) {
    case 'opened':
      return 'created';
    case 'closed':
    case 'reopened':
      return change.action;
    case 'moved':
      return change.previous?.state === 'opened' ? 'closed' : null;
    default:
      return null;
  }
}
