import type { Db } from '../../db/connection.js';
import { issuesWithMilestone, type IssueRow } from '../../db/tables/issues.js';
import { findMilestoneById } from '../../db/tables/milestones.js';
import { projectFullPaths, projectsByIds, usersByIds } from '../../db/tables/project-relations.js';
import { copyIssueLabelEvents, insertResourceLabelEvent } from '../../db/tables/resource-label-events.js';
import { copyIssueMilestoneEvents, insertResourceMilestoneEvent } from '../../db/tables/resource-milestone-events.js';
import { copyIssueStateEvents, insertResourceStateEvent } from '../../db/tables/resource-state-events.js';
import { copyIssueWeightEvents, insertResourceWeightEvent } from '../../db/tables/resource-weight-events.js';
import type { UserRow } from '../../db/tables/users.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';
import type { IssueChange, MilestoneChange } from './changes.js';
import { issueNoteable, type Noteable } from './noteables.js';
import { addSystemNote } from './notes.js';
import {
  assigneesChangeText,
  dueDateChangeText,
  issueReference,
  labelChangeText,
  milestoneChangeText,
  timeEstimateText,
  timeSpentText,
  titleChangeText,
} from './system-note-texts.js';

/**
 * The listener that writes an issue's history (issue 14, item 4): GitLab's system notes, in the
 * order its update service writes them (state, title, description, time tracking, lock, due date,
 * milestone, labels, assignees, confidentiality), and the resource_state_events,
 * resource_milestone_events, resource_label_events and resource_weight_events rows. A new issue gets the notes GitLab's
 * create writes (due date, milestone, labels); a moved issue's copy gets none, as GitLab's
 * MoveService creates it with skip_system_notes, and its history comes along instead.
 */
export function writeIssueHistory(ctx: SiteContext, change: IssueChange): void {
  const { db } = ctx;
  if (change.action === 'deleted') return;
  if (change.action === 'moved') return recordMove(db, change);
  if (change.action === 'opened' && isMovedCopy(change.issue)) return;
  const noteable = issueNoteable(change.project, change.issue);
  const at = nowIso();
  const userId = change.actor.id;
  const note = (body: string) => addSystemNote(db, noteable, userId, body, at);
  const { changes, issue } = change;
  const updating = change.action !== 'opened';

  if (change.action === 'closed' || change.action === 'reopened') {
    note(change.action);
    insertResourceStateEvent(db, { issue_id: issue.id, user_id: userId, state: change.action, created_at: at });
  }
  if (updating && changes.title) note(titleChangeText(String(changes.title[0]), issue.title));
  if (updating && changes.description) note('changed the description');
  if (updating && changes.time_estimate) note(timeEstimateText(issue.time_estimate));
  if (change.spentTime !== null) note(timeSpentText(change.spentTime));
  if (updating && changes.discussion_locked) note(`${issue.discussion_locked === 1 ? 'locked' : 'unlocked'} this issue`);
  if (changes.due_date && (updating || issue.due_date !== null)) note(dueDateChangeText(issue.due_date));
  if (changes.milestone_id && (updating || issue.milestone_id !== null)) recordMilestoneChange(db, noteable, issue, changes.milestone_id[0] as number | null, userId, at);
  const { added, removed } = change.labels;
  if (added.length + removed.length > 0) {
    note(labelChangeText(added, removed));
    for (const label of added) insertResourceLabelEvent(db, { issue_id: issue.id, label_id: label.id, user_id: userId, action: 'add', created_at: at });
    for (const label of removed) insertResourceLabelEvent(db, { issue_id: issue.id, label_id: label.id, user_id: userId, action: 'remove', created_at: at });
  }
  if (updating && change.assignees) note(assigneesText(db, change.assignees));
  if (updating && changes.confidential) note(issue.confidential === 1 ? 'made the issue confidential' : 'made the issue visible to everyone');
  // GitLab 17 keeps a weight change as an event only; its "changed weight to" note is drawn from the
  // event in the UI and never stored, so the notes API does not list it.
  if (changes.weight) insertResourceWeightEvent(db, { issue_id: issue.id, user_id: userId, weight: issue.weight, created_at: at });
}

/**
 * A moved issue's copy keeps the original's creation time and is written later (move-issue.ts),
 * where a new issue is created and updated at one instant: that tells the two apart.
 */
const isMovedCopy = (issue: IssueRow): boolean => issue.created_at !== issue.updated_at;

/** "changed milestone to %1" or "removed milestone", and its event: `add` of the new milestone, or `remove` of the old. */
function recordMilestoneChange(db: Db, noteable: Noteable, issue: IssueRow, previousId: number | null, userId: number, at: string): void {
  const milestone = issue.milestone_id === null ? null : (findMilestoneById(db, issue.milestone_id) ?? null);
  addSystemNote(db, noteable, userId, milestoneChangeText(milestone), at);
  insertResourceMilestoneEvent(db, {
    issue_id: issue.id,
    milestone_id: milestone ? milestone.id : previousId,
    user_id: userId,
    action: milestone ? 'add' : 'remove',
    state: issue.state,
    created_at: at,
  });
}

function assigneesText(db: Db, assignees: NonNullable<IssueChange['assignees']>): string {
  const users = usersByIds(db, [...assignees.previous, ...assignees.current]);
  const pick = (ids: readonly number[]) => ids.flatMap((id) => (users.has(id) ? [users.get(id) as UserRow] : []));
  return assigneesChangeText(
    pick(assignees.current.filter((id) => !assignees.previous.includes(id))),
    pick(assignees.previous.filter((id) => !assignees.current.includes(id))),
  );
}

/**
 * A move (GitLab's Issues::MoveService): "moved to <new>" on the original, "moved from <old>" on
 * the copy, which also takes the original's resource events (its notes came along already).
 */
function recordMove(db: Db, change: IssueChange): void {
  const copy = change.movedTo;
  if (!copy) return;
  const target = projectsByIds(db, [copy.project_id]).get(copy.project_id)!;
  const paths = projectFullPaths(db, [change.project.id, target.id]);
  const at = nowIso();
  const from = { project: change.project, fullPath: paths.get(change.project.id)!, iid: change.issue.iid };
  const to = { project: target, fullPath: paths.get(target.id)!, iid: copy.iid };
  copyIssueLabelEvents(db, change.issue.id, copy.id);
  copyIssueMilestoneEvents(db, change.issue.id, copy.id);
  copyIssueStateEvents(db, change.issue.id, copy.id);
  copyIssueWeightEvents(db, change.issue.id, copy.id);
  addSystemNote(db, issueNoteable(target, copy), change.actor.id, `moved from ${issueReference(from, target)}`, at);
  addSystemNote(db, issueNoteable(change.project, change.issue), change.actor.id, `moved to ${issueReference(to, change.project)}`, at);
}

/**
 * A deleted milestone leaves its issues (GitLab's Milestones::DestroyService updates each one with
 * `milestone: nil`): each gets "removed milestone" and a `remove` event, written before the row goes.
 */
export function writeMilestoneRemovals(ctx: SiteContext, change: MilestoneChange): void {
  if (change.action !== 'deleted') return;
  const { db } = ctx;
  const issues = issuesWithMilestone(db, change.milestone.id);
  if (!issues.length) return;
  const projects = projectsByIds(db, issues.map((issue) => issue.project_id));
  const at = nowIso();
  for (const issue of issues) {
    addSystemNote(db, issueNoteable(projects.get(issue.project_id)!, issue), change.actor.id, milestoneChangeText(null), at);
    insertResourceMilestoneEvent(db, { issue_id: issue.id, milestone_id: change.milestone.id, user_id: change.actor.id, action: 'remove', state: issue.state, created_at: at });
  }
}
