import type { Db } from '../../db/connection.js';
import { insertMergeRequestLabelEvent, insertMergeRequestMilestoneEvent, insertMergeRequestStateEvent } from '../../db/tables/merge-request-resource-events.js';
import { diffCommitsOf } from '../../db/tables/merge-request-diffs.js';
import type { MergeRequestRow } from '../../db/tables/merge-requests.js';
import { findMilestoneById } from '../../db/tables/milestones.js';
import { usersByIds } from '../../db/tables/project-relations.js';
import type { UserRow } from '../../db/tables/users.js';
import { isWorkInProgress } from '../../entities/merge-requests.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';
import { mergeRequestNoteable } from '../issuables/noteables.js';
import { addSystemNote } from '../issuables/notes.js';
import { assigneesChangeText, labelChangeText, milestoneChangeText, timeEstimateText, timeSpentText, titleChangeText } from '../issuables/system-note-texts.js';
import type { MergeRequestChange } from './changes.js';

/**
 * The listener that writes a merge request's history, as the tracker's writeIssueHistory does for
 * issues: GitLab's system notes (state, title and work in progress, description, time tracking,
 * lock, target branch, milestone, labels, assignee, commits added by a push) and the resource_state_events,
 * resource_milestone_events and resource_label_events rows (merge_request_id). `merged` (announced
 * by the merge code) writes "merged" and its state event.
 */
export function writeMergeRequestHistory(ctx: SiteContext, change: MergeRequestChange): void {
  const { db } = ctx;
  if (change.action === 'deleted') return;
  const { mergeRequest, changes } = change;
  const noteable = mergeRequestNoteable(change.project, mergeRequest);
  const at = nowIso();
  const userId = change.actor.id;
  const note = (body: string) => addSystemNote(db, noteable, userId, body, at);
  const updating = change.action !== 'opened';

  if (change.action === 'closed' || change.action === 'reopened' || change.action === 'merged') {
    note(change.action);
    insertMergeRequestStateEvent(db, { merge_request_id: mergeRequest.id, user_id: userId, state: change.action, created_at: at });
  }
  if (change.action === 'pushed' && change.previous) note(commitsAddedText(db, change.previous, mergeRequest));
  if (updating && changes.title) {
    const before = String(changes.title[0]);
    note(titleChangeText(before, mergeRequest.title));
    if (isWorkInProgress(before) !== isWorkInProgress(mergeRequest.title)) note(`${isWorkInProgress(mergeRequest.title) ? 'marked' : 'unmarked'} as a **Work In Progress**`);
  }
  if (updating && changes.description) note('changed the description');
  if (updating && changes.time_estimate) note(timeEstimateText(mergeRequest.time_estimate));
  if (change.spentTime !== undefined && change.spentTime !== null) note(timeSpentText(change.spentTime));
  if (updating && changes.discussion_locked) note(`${mergeRequest.discussion_locked === 1 ? 'locked' : 'unlocked'} this merge request`);
  if (updating && changes.target_branch) note(`changed target branch from \`${String(changes.target_branch[0])}\` to \`${mergeRequest.target_branch}\``);
  if (changes.milestone_id && (updating || mergeRequest.milestone_id !== null)) {
    const milestone = mergeRequest.milestone_id === null ? null : (findMilestoneById(db, mergeRequest.milestone_id) ?? null);
    note(milestoneChangeText(milestone));
    insertMergeRequestMilestoneEvent(db, {
      merge_request_id: mergeRequest.id,
      milestone_id: milestone ? milestone.id : (changes.milestone_id[0] as number | null),
      user_id: userId,
      action: milestone ? 'add' : 'remove',
      state: mergeRequest.state,
      created_at: at,
    });
  }
  const { added, removed } = change.labels;
  if (added.length + removed.length > 0) {
    note(labelChangeText(added, removed));
    for (const label of added) insertMergeRequestLabelEvent(db, { merge_request_id: mergeRequest.id, label_id: label.id, user_id: userId, action: 'add', created_at: at });
    for (const label of removed) insertMergeRequestLabelEvent(db, { merge_request_id: mergeRequest.id, label_id: label.id, user_id: userId, action: 'remove', created_at: at });
  }
  if (updating && changes.assignee_id) note(assigneeText(db, changes.assignee_id[0] as number | null, mergeRequest.assignee_id));
}

function assigneeText(db: Db, before: number | null, after: number | null): string {
  const users = usersByIds(db, [before, after].filter((id): id is number => id !== null));
  const pick = (id: number | null): UserRow[] => (id !== null && users.has(id) ? [users.get(id)!] : []);
  return assigneesChangeText(pick(after), pick(before));
}

/** GitLab's "added N commits" note of a push: the commits of the new version that the previous one lacked, each as `* <short sha> - <title>`. */
function commitsAddedText(db: Db, previous: MergeRequestRow, current: MergeRequestRow): string {
  const old = new Set(previous.latest_merge_request_diff_id === null ? [] : diffCommitsOf(db, previous.latest_merge_request_diff_id).map((commit) => commit.sha));
  const added = current.latest_merge_request_diff_id === null ? [] : diffCommitsOf(db, current.latest_merge_request_diff_id).filter((commit) => !old.has(commit.sha));
  const lines = added.map((commit) => `* ${commit.sha.slice(0, 8)} - ${commit.message.split('\n', 1)[0]!.trim()}`);
  return `added ${added.length} commit${added.length === 1 ? '' : 's'}\n\n${lines.join('\n')}`;
}
