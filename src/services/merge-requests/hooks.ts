import { labelsOfTargets } from '../../db/tables/label-links.js';
import { diffCommitsOf } from '../../db/tables/merge-request-diffs.js';
import type { MergeRequestRow } from '../../db/tables/merge-requests.js';
import type { NoteRow } from '../../db/tables/notes.js';
import { findProjectById, type ProjectRow } from '../../db/tables/projects.js';
import { usersByIds } from '../../db/tables/project-relations.js';
import type { UserRow } from '../../db/tables/users.js';
import { isWorkInProgress } from '../../entities/merge-requests.js';
import type { SiteContext } from '../../site-context.js';
import { fireProjectHooks } from '../hooks/fire.js';
import { fireSystemHooks } from '../hooks/system-fire.js';
import { mergeRequestNotePayload, mergeRequestPayload, type MergeRequestHookInput } from '../hooks/payloads.js';
import { hookLabel, labelHookChanges } from '../issuables/hook-labels.js';
import { hookProjectOf, hookUserOf } from '../hooks/subjects.js';
import type { MergeRequestChange } from './changes.js';

/** What the merge request hook payloads need, read in the write's transaction. */
function hookInput(ctx: SiteContext, actor: UserRow, project: ProjectRow, mergeRequest: MergeRequestRow): MergeRequestHookInput {
  const { db } = ctx;
  const labels = labelsOfTargets(db, 'MergeRequest', [mergeRequest.id]).get(mergeRequest.id) ?? [];
  const source = mergeRequest.source_project_id === null ? undefined : mergeRequest.source_project_id === project.id ? project : findProjectById(db, mergeRequest.source_project_id);
  const assignee = mergeRequest.assignee_id === null ? undefined : usersByIds(db, [mergeRequest.assignee_id]).get(mergeRequest.assignee_id);
  const head = mergeRequest.latest_merge_request_diff_id === null ? undefined : diffCommitsOf(db, mergeRequest.latest_merge_request_diff_id, 1)[0];
  const { id, iid, title, description, state, author_id, assignee_id, milestone_id, source_project_id, target_project_id, source_branch, target_branch } = mergeRequest;
  return {
    user: hookUserOf(ctx, actor),
    project: hookProjectOf(ctx, project),
    source: source ? hookProjectOf(ctx, source) : null,
    mergeRequest: {
      id,
      iid,
      title,
      description,
      state,
      author_id,
      assignee_id,
      milestone_id,
      source_project_id,
      target_project_id,
      source_branch,
      target_branch,
      merge_status: mergeRequest.merge_status,
      merge_error: mergeRequest.merge_error,
      merge_commit_sha: mergeRequest.merge_commit_sha,
      merge_when_pipeline_succeeds: mergeRequest.merge_when_pipeline_succeeds,
      merge_user_id: mergeRequest.merge_user_id,
      merge_params: mergeRequest.merge_params,
      head_pipeline_id: mergeRequest.head_pipeline_id,
      last_edited_at: mergeRequest.last_edited_at,
      last_edited_by_id: mergeRequest.last_edited_by_id,
      time_estimate: mergeRequest.time_estimate,
      total_time_spent: mergeRequest.total_time_spent,
      created_at: mergeRequest.created_at,
      updated_at: mergeRequest.updated_at,
    },
    workInProgress: isWorkInProgress(title),
    lastCommit: head
      ? { id: head.sha, message: head.message, timestamp: head.committed_date ?? '', author: { name: head.author_name ?? '', email: head.author_email ?? '' }, added: [], modified: [], removed: [] }
      : null,
    labels: labels.map(hookLabel),
    assignee: assignee ? hookUserOf(ctx, assignee) : null,
  };
}

const HOOK_ACTIONS: Readonly<Record<MergeRequestChange['action'], string | null>> = {
  opened: 'open',
  updated: 'update',
  closed: 'close',
  reopened: 'reopen',
  merged: 'merge',
  pushed: 'update',
  deleted: null,
};

/**
 * Calls the target project's `merge_requests_events` hooks with GitLab's Merge Request Hook
 * payload, in the write's transaction (delivery follows the commit). `action` is GitLab's (open,
 * update, close, reopen, merge, approved, unapproved); `oldrev` the previous head of a push.
 */
export function fireMergeRequestHooks(
  ctx: SiteContext,
  actor: UserRow,
  project: ProjectRow,
  mergeRequest: MergeRequestRow,
  action: string,
  changes: Readonly<Record<string, readonly [unknown, unknown]>> = {},
  oldrev: string | null = null,
): void {
  if (!ctx.webhooks.delivers) return;
  const payload = mergeRequestPayload(hookInput(ctx, actor, project, mergeRequest), action, changes, oldrev);
  fireProjectHooks(ctx, project, 'merge_request', payload);
  fireSystemHooks(ctx, 'merge_request', payload);
}

/** The merge-request-change listener (changes.ts) that calls the hooks of each write; a delete calls none, as in GitLab. */
export function mergeRequestHooks(ctx: SiteContext, change: MergeRequestChange): void {
  const action = HOOK_ACTIONS[change.action];
  if (!action) return;
  const changes: Record<string, readonly [unknown, unknown]> = { ...change.changes };
  if (change.labels.added.length || change.labels.removed.length) {
    const labels = labelsOfTargets(ctx.db, 'MergeRequest', [change.mergeRequest.id]).get(change.mergeRequest.id) ?? [];
    changes.labels = labelHookChanges(labels, change.labels);
  }
  const oldrev = change.action === 'pushed' ? (change.previous?.head_sha ?? null) : null;
  fireMergeRequestHooks(ctx, change.actor, change.project, change.mergeRequest, action, change.previous ? changes : {}, oldrev);
}

/** Calls the target project's note hooks for a new comment on a merge request, in the note's transaction. */
export function mergeRequestNoteHooks(ctx: SiteContext, author: UserRow, project: ProjectRow, mergeRequest: MergeRequestRow, note: NoteRow): void {
  if (!ctx.webhooks.delivers) return;
  const position = note.position ? (JSON.parse(note.position) as unknown) : null;
  fireProjectHooks(ctx, project, 'note', mergeRequestNotePayload(hookInput(ctx, author, project, mergeRequest), note, position));
}
