import { inTransaction } from '../../db/connection.js';
import { findMergeRequestById, updateMergeRequestRow, type MergeRequestRow } from '../../db/tables/merge-requests.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { deleteMergeRequestTimelogs, insertMergeRequestTimelog } from '../../db/tables/timelogs.js';
import { invalid } from '../../errors.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';
import type { Actor } from '../users/authentication.js';
import { announceMergeRequestChange, mergeRequestChange } from './changes.js';

/**
 * Time tracking of merge requests (GitLab's TimeTrackingEndpoints, as on issues): the estimate and
 * the time spent in seconds (the caller parsed GitLab's duration text with the tracker's
 * parseDuration), each write an `updated` change with its system note.
 */
export function setMergeRequestTimeEstimate(ctx: SiteContext, actor: Actor, project: ProjectRow, loaded: MergeRequestRow, seconds: number | null): MergeRequestRow {
  if (seconds === null || seconds < 0) throw invalid({ time_estimate: ['has an invalid format'] });
  return writeTime(ctx, actor, project, loaded, () => ({ time_estimate: seconds }), null);
}

/** Logs time spent (negative subtracts, never below a total of 0), or with `reset` removes every log. */
export function logMergeRequestSpentTime(ctx: SiteContext, actor: Actor, project: ProjectRow, loaded: MergeRequestRow, seconds: number | 'reset' | null): MergeRequestRow {
  if (seconds === null) throw invalid({ time_spent: ['has an invalid format'] });
  return writeTime(
    ctx,
    actor,
    project,
    loaded,
    (row, now) => {
      if (seconds === 'reset') {
        deleteMergeRequestTimelogs(ctx.db, row.id);
        return { total_time_spent: 0 };
      }
      if (row.total_time_spent + seconds < 0) throw invalid({ time_spent: ['Time to subtract exceeds the total time spent'] });
      insertMergeRequestTimelog(ctx.db, row.id, actor.user.id, seconds, now);
      return { total_time_spent: row.total_time_spent + seconds };
    },
    seconds,
  );
}

function writeTime(
  ctx: SiteContext,
  actor: Actor,
  project: ProjectRow,
  loaded: MergeRequestRow,
  columnsOf: (row: MergeRequestRow, now: string) => Partial<Pick<MergeRequestRow, 'time_estimate' | 'total_time_spent'>>,
  spentTime: number | 'reset' | null,
): MergeRequestRow {
  return inTransaction(ctx.db, () => {
    const before = findMergeRequestById(ctx.db, loaded.id)!;
    const now = nowIso();
    const columns = columnsOf(before, now);
    const unchanged = Object.entries(columns).every(([key, value]) => before[key as keyof MergeRequestRow] === value);
    if (unchanged && (spentTime === null || spentTime === 'reset')) return before;
    updateMergeRequestRow(ctx.db, before.id, { ...columns, updated_at: now });
    const after = findMergeRequestById(ctx.db, before.id)!;
    announceMergeRequestChange(ctx, { ...mergeRequestChange('updated', actor.user, project, before, after), spentTime });
    return after;
  });
}
