import { followMovedIssue } from '../planning/epic-issues.js';
import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { awardsOf, copyAwards } from '../../db/tables/award-emoji.js';
import { nextInternalId } from '../../db/tables/internal-ids.js';
import { setIssueAssignees } from '../../db/tables/issue-assignees.js';
import { findIssueById, insertIssue, updateIssueRow } from '../../db/tables/issues.js';
import { labelsOfTargets } from '../../db/tables/label-links.js';
import { findLabelsByTitles } from '../../db/tables/labels.js';
import { findMilestoneById, milestoneIdsWithTitle } from '../../db/tables/milestones.js';
import { insertNoteCopy, notesOf } from '../../db/tables/notes.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { copyTimelogToIssue, timelogsOfIssue } from '../../db/tables/timelogs.js';
import { badRequest } from '../../errors.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';
import { can } from '../permissions.js';
import type { Actor } from '../users/authentication.js';
import { announceIssueChange } from './changes.js';
import { issueChange, keepOpenIssuesCount, type LoadedIssue } from './issues.js';
import { replaceLabelLinks } from './label-links.js';
import { projectLabelScope, projectMilestoneScope } from './scopes.js';

const NO_PERMISSION = 'Cannot move issue due to insufficient permissions!';

/**
 * Moves an issue to another project (GitLab's Issues::MoveService): a new issue with the target's
 * next iid copies it (author, attributes, assignees, notes with their award emoji, award emoji and
 * time logs; labels and the milestone where the target has one of the same title), and the old
 * issue is closed and points at it. 400 when the actor may not admin issues in both projects,
 * when the issue was moved already, or when the target is its own project.
 */
export function moveIssue(ctx: SiteContext, actor: Actor, project: ProjectRow, loaded: LoadedIssue, target: ProjectRow): LoadedIssue {
  const { db } = ctx;
  return inTransaction(db, () => {
    const old = findIssueById(db, loaded.issue.id)!;
    if (old.moved_to_id !== null || !can(db, actor, 'admin_issue', project) || !can(db, actor, 'admin_issue', target)) throw badRequest(NO_PERMISSION);
    if (target.id === project.id) throw badRequest('Cannot move issue to project it originates from!');
    const now = nowIso();
    const { id: _id, iid: _iid, project_id: _project, milestone_id: milestoneId, moved_to_id: _moved, ...copied } = old;
    const newId = insertIssue(db, {
      ...copied,
      project_id: target.id,
      iid: nextInternalId(db, 'issues', target.id),
      milestone_id: sameMilestoneIn(db, target, milestoneId),
      updated_at: now,
    });
    const oldLabels = labelsOfTargets(db, 'Issue', [old.id]).get(old.id) ?? [];
    const labels = replaceLabelLinks(db, 'Issue', newId, [], findLabelsByTitles(db, projectLabelScope(db, target), [...new Set(oldLabels.map((label) => label.title))]), now);
    setIssueAssignees(db, newId, loaded.assigneeIds);
    copyThread(db, old.id, target.id, newId);
    const created = findIssueById(db, newId)!;
    followMovedIssue(db, old.id, created, target);
    keepOpenIssuesCount(db, target.id, null, created);
    announceIssueChange(ctx, issueChange('opened', actor, target, null, created, labels, loaded.assigneeIds.length ? { previous: [], current: loaded.assigneeIds } : null));

    const closing = old.state === 'opened' ? { state: 'closed' as const, closed_at: now, closed_by_id: actor.user.id } : {};
    updateIssueRow(db, old.id, { ...closing, moved_to_id: newId, updated_at: now });
    const moved = findIssueById(db, old.id)!;
    keepOpenIssuesCount(db, project.id, old, moved);
    announceIssueChange(ctx, issueChange('moved', actor, project, old, moved, { added: [], removed: [] }, null, { movedTo: created }));
    return { issue: created, assigneeIds: loaded.assigneeIds };
  });
}

/** The target's milestone with the title of the issue's milestone, if it has one. */
function sameMilestoneIn(db: Db, target: ProjectRow, milestoneId: number | null): number | null {
  const milestone = milestoneId === null ? undefined : findMilestoneById(db, milestoneId);
  if (!milestone) return null;
  return milestoneIdsWithTitle(db, projectMilestoneScope(db, target), milestone.title)[0] ?? null;
}

/** Copies the notes (each discussion under a new id), award emoji and time logs of one issue onto another. */
function copyThread(db: Db, fromIssueId: number, projectId: number, toIssueId: number): void {
  const discussions = new Map<string, string>();
  for (const note of notesOf(db, 'Issue', fromIssueId)) {
    let discussionId = discussions.get(note.discussion_id);
    if (!discussionId) {
      discussionId = randomBytes(20).toString('hex');
      discussions.set(note.discussion_id, discussionId);
    }
    const noteId = insertNoteCopy(db, note, { projectId, noteableId: toIssueId, discussionId });
    copyAwards(db, awardsOf(db, 'Note', note.id), noteId);
  }
  copyAwards(db, awardsOf(db, 'Issue', fromIssueId), toIssueId);
  for (const log of timelogsOfIssue(db, fromIssueId)) copyTimelogToIssue(db, log, toIssueId);
}
