import { assigneesOfIssues } from '../../db/tables/issue-assignees.js';
import { labelsOfTargets } from '../../db/tables/label-links.js';
import { findIssueById, type IssueRow } from '../../db/tables/issues.js';
import type { NoteRow } from '../../db/tables/notes.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import type { UserRow } from '../../db/tables/users.js';
import { usersByIds } from '../../db/tables/project-relations.js';
import type { SiteContext } from '../../site-context.js';
import { fireProjectHooks } from '../hooks/fire.js';
import { issueNotePayload, issuePayload } from '../hooks/payloads.js';
import { hookProjectOf, hookUserOf } from '../hooks/subjects.js';
import type { IssueChange } from './changes.js';
import { hookLabel, labelHookChanges } from './hook-labels.js';
import type { NoteChange } from './note-changes.js';

/**
 * The issue-change listener (changes.ts) that calls the project's issue hooks: `issues_events`
 * hooks for an issue, `confidential_issues_events` hooks for a confidential one, with GitLab's
 * Issue Hook payload. The deliveries are queued in the write's transaction and sent after it
 * commits (services/hooks/queue.ts); a rolled-back write sends nothing. A delete calls no hook,
 * as in GitLab 10-13.
 */
export function issueHooks(ctx: SiteContext, change: IssueChange): void {
  const action = hookAction(change);
  if (!action) return;
  const { db } = ctx;
  const { issue } = change;
  if (!ctx.webhooks.delivers) return;
  const labels = labelsOfTargets(db, 'Issue', [issue.id]).get(issue.id) ?? [];
  const assignees = (assigneesOfIssues(db, [issue.id]).get(issue.id) ?? []).map((user) => hookUserOf(ctx, user));
  const changes: Record<string, readonly [unknown, unknown]> = { ...change.changes };
  if (change.labels.added.length || change.labels.removed.length) changes.labels = labelHookChanges(labels, change.labels);
  if (change.assignees && change.previous) {
    const users = usersByIds(db, [...change.assignees.previous, ...change.assignees.current]);
    const attrs = (ids: readonly number[]) => ids.flatMap((id) => (users.has(id) ? [hookUserOf(ctx, users.get(id)!)] : []));
    changes.assignees = [attrs(change.assignees.previous), attrs(change.assignees.current)];
  }
  const payload = issuePayload({
    user: hookUserOf(ctx, change.actor),
    project: hookProjectOf(ctx, change.project),
    issue,
    action,
    labels: labels.map(hookLabel),
    assignees,
    changes: change.previous ? changes : {},
  });
  fireProjectHooks(ctx, change.project, issue.confidential ? 'confidential_issue' : 'issue', payload);
}

function hookAction(change: IssueChange): 'open' | 'close' | 'reopen' | 'update' | null {
  switch (change.action) {
    case 'opened':
      return 'open';
    case 'closed':
      return 'close';
    case 'reopened':
      return 'reopen';
    case 'updated':
      return 'update';
    case 'moved':
      return change.previous?.state === 'opened' ? 'close' : null;
    case 'deleted':
      return null;
  }
}

/** A comment on an issue (note-changes.ts listener): GitLab sends note hooks for new comments only. */
export function noteHooks(ctx: SiteContext, change: NoteChange): void {
  if (change.action !== 'created' || change.noteable.type !== 'Issue') return;
  const issue = findIssueById(ctx.db, change.noteable.id);
  if (issue) issueNoteHooks(ctx, change.actor, change.noteable.project, issue, change.note);
}

/**
 * Calls the project's note hooks for a comment on an issue, with GitLab's Note Hook payload, in the
 * note's transaction (delivery follows the commit). A comment on a confidential issue is sent
 * nowhere: hooks have no confidential note flag here, and note_events receivers must not see what
 * the issue hides (GitLab later gave such notes their own hooks).
 */
function issueNoteHooks(ctx: SiteContext, author: UserRow, project: ProjectRow, issue: IssueRow, note: NoteRow): void {
  if (!ctx.webhooks.delivers || issue.confidential) return;
  const { db } = ctx;
  const labels = labelsOfTargets(db, 'Issue', [issue.id]).get(issue.id) ?? [];
  const assignees = (assigneesOfIssues(db, [issue.id]).get(issue.id) ?? []).map((user) => hookUserOf(ctx, user));
  const payload = issueNotePayload({ user: hookUserOf(ctx, author), project: hookProjectOf(ctx, project), note, issue, labels: labels.map(hookLabel), assignees });
  fireProjectHooks(ctx, project, 'note', payload);
}
