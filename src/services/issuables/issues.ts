import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { nextInternalId } from '../../db/tables/internal-ids.js';
import { assigneeIdsOf, setIssueAssignees } from '../../db/tables/issue-assignees.js';
import { addOpenIssuesCount, findIssueById, findIssueByIid, insertIssue, updateIssueRow, type IssueColumns, type IssueRow } from '../../db/tables/issues.js';
import { labelsOfTargets } from '../../db/tables/label-links.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { findUserAgentDetail, insertUserAgentDetail, type UserAgentDetailRow } from '../../db/tables/user-agent-details.js';
import { forbidden, notFound } from '../../errors.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';
import { can, canReadIssue, canUpdateIssue } from '../permissions.js';
import type { Actor } from '../users/authentication.js';
import { announceIssueChange, changedColumns, type IssueChange } from './changes.js';
import { resolveIssueInput, type IssueInput } from './issue-attributes.js';
import { removeIssueRows } from './issue-removal.js';
import { replaceLabelLinks } from './label-links.js';

/** An issue with its assignee ids, as the permission rules read it. */
export interface LoadedIssue {
  readonly issue: IssueRow;
  readonly assigneeIds: readonly number[];
}

/** Where a create came from, kept for admins (GitLab's user_agent_detail, for spam review). */
export interface RequestOrigin {
  readonly userAgent: string;
  readonly ipAddress: string;
}

/**
 * The issue `iid` of the project if the actor may read it. A confidential issue the actor may not
 * see is missing, exactly as an unknown iid: 404 (`404 Not found`, or `404 <resource> Not Found`).
 */
export function findReadableIssue(db: Db, actor: Actor | null, project: ProjectRow, iid: number, resource = ''): LoadedIssue {
  const issue = findIssueByIid(db, project.id, iid);
  if (!issue) throw notFound(resource);
  const assigneeIds = assigneeIdsOf(db, issue.id);
  if (!canReadIssue(db, actor, project, { ...issue, assigneeIds })) throw notFound(resource);
  return { issue, assigneeIds };
}

/** Like findReadableIssue, then 403 unless the actor may edit it (canUpdateIssue). */
export function findEditableIssue(db: Db, actor: Actor, project: ProjectRow, iid: number, resource = ''): LoadedIssue {
  const loaded = findReadableIssue(db, actor, project, iid, resource);
  if (!canUpdateIssue(db, actor, project, { ...loaded.issue, assigneeIds: loaded.assigneeIds })) throw forbidden();
  return loaded;
}

/** Whether an issue counts in its project's open_issues_count: open and not confidential (the count anyone may see, GitLab 10.x's counter). */
const countsAsOpen = (issue: Pick<IssueRow, 'state' | 'confidential'> | null): number => (issue && issue.state === 'opened' && issue.confidential === 0 ? 1 : 0);

/** Moves the project's counter by what a write did to one issue. */
export function keepOpenIssuesCount(db: Db, projectId: number, before: IssueRow | null, after: IssueRow | null): void {
  addOpenIssuesCount(db, projectId, countsAsOpen(after) - countsAsOpen(before));
}

/**
 * Opens an issue in the project with the project's next iid, allocated in this transaction (so
 * concurrent creates get distinct, consecutive iids). Attributes beyond title and description
 * need admin_issue and are dropped without it, as GitLab does.
 */
export function createIssue(ctx: SiteContext, actor: Actor, project: ProjectRow, input: IssueInput & { title: string }, origin: RequestOrigin | null): LoadedIssue {
  const { db } = ctx;
  return inTransaction(db, () => {
    const powers = { admin: can(db, actor, 'admin_issue', project), backdate: can(db, actor, 'set_issue_created_at', project) };
    const resolved = resolveIssueInput(db, project, null, [], [], input, powers);
    const now = nowIso();
    const createdAt = resolved.columns.created_at ?? now;
    const id = insertIssue(db, {
      ...resolved.columns,
      project_id: project.id,
      iid: nextInternalId(db, 'issues', project.id),
      title: resolved.columns.title ?? input.title,
      author_id: actor.user.id,
      created_at: createdAt,
      updated_at: createdAt,
    });
    const labels = replaceLabelLinks(db, 'Issue', id, [], resolved.labels ?? [], now);
    const assigneeIds = resolved.assigneeIds ?? [];
    setIssueAssignees(db, id, assigneeIds);
    if (origin) insertUserAgentDetail(db, 'Issue', id, origin.userAgent, origin.ipAddress, now);
    const issue = findIssueById(db, id)!;
    keepOpenIssuesCount(db, project.id, null, issue);
    announceIssueChange(ctx, issueChange('opened', actor, project, null, issue, labels, assigneeIds.length ? { previous: [], current: assigneeIds } : null));
    return { issue, assigneeIds };
  });
}

/** What created the issue (admins ask, for spam review); 404 `UserAgentDetail` when nothing was recorded. */
export function getUserAgentDetail(db: Db, issue: IssueRow): UserAgentDetailRow {
  const detail = findUserAgentDetail(db, 'Issue', issue.id);
  if (!detail) throw notFound('UserAgentDetail');
  return detail;
}

/** An edit: attributes, labels, assignees and `state_event` (close or reopen). */
export type IssueUpdate = IssueInput & { readonly state_event?: 'close' | 'reopen' };

/**
 * Edits an issue the actor may edit (the caller loaded it with findEditableIssue). Closing sets
 * closed_at and closed_by, reopening clears them; the project's counter follows the state and
 * confidentiality. updated_at moves only when something changed.
 */
export function updateIssue(ctx: SiteContext, actor: Actor, project: ProjectRow, loaded: LoadedIssue, input: IssueUpdate): LoadedIssue {
  const { db } = ctx;
  return inTransaction(db, () => {
    const before = findIssueById(db, loaded.issue.id)!;
    const currentLabels = labelsOfTargets(db, 'Issue', [before.id]).get(before.id) ?? [];
    const powers = { admin: can(db, actor, 'admin_issue', project), backdate: can(db, actor, 'set_issue_created_at', project) };
    const resolved = resolveIssueInput(db, project, before, currentLabels, loaded.assigneeIds, input, powers);
    const now = nowIso();
    const columns: IssueColumns = { ...resolved.columns };
    if (input.state_event === 'close' && before.state === 'opened') Object.assign(columns, { state: 'closed', closed_at: now, closed_by_id: actor.user.id });
    if (input.state_event === 'reopen' && before.state === 'closed') Object.assign(columns, { state: 'opened', closed_at: null, closed_by_id: null });
    const labels = resolved.labels ? replaceLabelLinks(db, 'Issue', before.id, currentLabels, resolved.labels, now) : { added: [], removed: [] };
    let assignees: IssueChange['assignees'] = null;
    if (resolved.assigneeIds && !sameIds(resolved.assigneeIds, loaded.assigneeIds)) {
      setIssueAssignees(db, before.id, resolved.assigneeIds);
      assignees = { previous: loaded.assigneeIds, current: resolved.assigneeIds };
    }
    const changed = Object.keys(changedColumns(before, { ...before, ...columns })).length > 0 || labels.added.length + labels.removed.length > 0 || assignees !== null;
    if (changed) updateIssueRow(db, before.id, { ...columns, updated_at: columns.updated_at ?? now });
    const issue = findIssueById(db, before.id)!;
    keepOpenIssuesCount(db, project.id, before, issue);
    if (changed) {
      const action = issue.state === before.state ? 'updated' : issue.state === 'closed' ? 'closed' : 'reopened';
      announceIssueChange(ctx, issueChange(action, actor, project, before, issue, labels, assignees));
    }
    return { issue, assigneeIds: assignees ? assignees.current : loaded.assigneeIds };
  });
}

/** Deletes an issue and everything that points at it; the counter follows. The caller checked destroy_issue. */
export function deleteIssue(ctx: SiteContext, actor: Actor, project: ProjectRow, loaded: LoadedIssue): void {
  inTransaction(ctx.db, () => {
    const issue = findIssueById(ctx.db, loaded.issue.id)!;
    announceIssueChange(ctx, issueChange('deleted', actor, project, issue, issue, { added: [], removed: [] }, null));
    keepOpenIssuesCount(ctx.db, project.id, issue, null);
    removeIssueRows(ctx.db, [issue.id]);
  });
}

const sameIds = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((id) => b.includes(id));

/** An IssueChange for the common writes. */
export function issueChange(
  action: IssueChange['action'],
  actor: Actor,
  project: ProjectRow,
  previous: IssueRow | null,
  issue: IssueRow,
  labels: IssueChange['labels'],
  assignees: IssueChange['assignees'],
  extra: Partial<Pick<IssueChange, 'spentTime' | 'movedTo'>> = {},
): IssueChange {
  return {
    action,
    actor: actor.user,
    project,
    issue,
    previous,
    changes: changedColumns(previous, issue),
    labels,
    assignees,
    spentTime: extra.spentTime ?? null,
    movedTo: extra.movedTo ?? null,
  };
}
