import { findMergeRequestById, updateMergeRequestRow, type MergeRequestRow } from '../../db/tables/merge-requests.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { deleteMergeRequestTimelogs, insertMergeRequestTimelog } from '../../db/tables/timelogs.js';
import type { SiteContext } from '../../site-context.js';
import { logTime, setEstimate, type TimeTrackingStore } from '../issuables/time-tracking.js';
import type { Actor } from '../users/authentication.js';
import { announceMergeRequestChange, mergeRequestChange } from './changes.js';

/**
 * Time tracking of merge requests (GitLab's TimeTrackingEndpoints, as on issues): the estimate and
 * the time spent in seconds (the caller parsed GitLab's duration text with the tracker's
 * parseDuration), each write an `updated` change with its system note.
 */
function mergeRequestTime(ctx: SiteContext, actor: Actor, project: ProjectRow): TimeTrackingStore<MergeRequestRow> {
  return {
    find: (id) => findMergeRequestById(ctx.db, id)!,
    update: (id, columns) => updateMergeRequestRow(ctx.db, id, columns),
    deleteLogs: (id) => deleteMergeRequestTimelogs(ctx.db, id),
    insertLog: (id, seconds, _spentAt, now) => insertMergeRequestTimelog(ctx.db, id, actor.user.id, seconds, now),
    announce: (before, after, spentTime) => announceMergeRequestChange(ctx, { ...mergeRequestChange('updated', actor.user, project, before, after), spentTime }),
  };
}

export function setMergeRequestTimeEstimate(ctx: SiteContext, actor: Actor, project: ProjectRow, loaded: MergeRequestRow, seconds: number | null): MergeRequestRow {
  return setEstimate(ctx, mergeRequestTime(ctx, actor, project), loaded.id, seconds);
}

/** Logs time spent (negative subtracts, never below a total of 0), or with `reset` removes every log. */
export function logMergeRequestSpentTime(ctx: SiteContext, actor: Actor, project: ProjectRow, loaded: MergeRequestRow, seconds: number | 'reset' | null): MergeRequestRow {
  return logTime(ctx, mergeRequestTime(ctx, actor, project), loaded.id, seconds, null);
}
