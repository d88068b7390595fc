import { inTransaction } from '../../db/connection.js';
import { deleteIssueTimelogs, insertIssueTimelog } from '../../db/tables/timelogs.js';
import { findIssueById, updateIssueRow, type IssueRow } from '../../db/tables/issues.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { DURATION_UNIT_SECONDS } from '../../entities/time-stats.js';
import { invalid } from '../../errors.js';
import type { SiteContext } from '../../site-context.js';
import { nowIso } from '../../storage/clock.js';
import type { Actor } from '../users/authentication.js';
import { announceIssueChange } from './changes.js';
import { issueChange, type LoadedIssue } from './issues.js';

const UNIT_NAMES: Readonly<Record<string, keyof typeof DURATION_UNIT_SECONDS>> = {
  s: 's', sec: 's', secs: 's', second: 's', seconds: 's',
  m: 'm', min: 'm', mins: 'm', minute: 'm', minutes: 'm',
  h: 'h', hr: 'h', hrs: 'h', hour: 'h', hours: 'h',
  d: 'd', day: 'd', days: 'd',
  w: 'w', wk: 'w', wks: 'w', week: 'w', weeks: 'w',
  mo: 'mo', mos: 'mo', month: 'mo', months: 'mo',
};

/**
 * GitLab's duration text in seconds (Gitlab::TimeTrackingFormatter.parse): amounts with units
 * (`1w2d3h30m`, `1 week 2 days`, `1.5h`, `90m`), a bare number meaning hours, a leading `-`
 * subtracting; 8-hour days, 5-day weeks, 4-week months. Null when the text is not a duration.
 */
export function parseDuration(raw: string): number | null {
  let text = raw.trim().toLowerCase();
  const negative = text.startsWith('-');
  if (negative) text = text.slice(1).trim();
  if (!text) return null;
  if (/^\d+(\.\d+)?$/.test(text)) return sign(Math.round(Number(text) * DURATION_UNIT_SECONDS.h), negative);
  let seconds = 0;
  let rest = text;
  const token = /^(\d+(?:\.\d+)?)\s*([a-z]+)[\s,]*(?:and\s+)?/;
  while (rest) {
    const match = token.exec(rest);
    const unit = match ? UNIT_NAMES[match[2]] : undefined;
    if (!match || !unit) return null;
    seconds += Number(match[1]) * DURATION_UNIT_SECONDS[unit];
    rest = rest.slice(match[0].length);
  }
  return sign(Math.round(seconds), negative);
}

const sign = (seconds: number, negative: boolean) => (negative ? -seconds : seconds);

/** What time tracking reads and writes of an issuable (an issue or a merge request). */
export interface TimeTracked {
  readonly id: number;
  readonly time_estimate: number;
  readonly total_time_spent: number;
}

/** How one kind of issuable stores its time: its row, its time logs, and the change it announces. */
export interface TimeTrackingStore<Row extends TimeTracked> {
  find(id: number): Row;
  update(id: number, columns: Partial<TimeTracked> & { updated_at: string }): void;
  deleteLogs(id: number): void;
  insertLog(id: number, seconds: number, spentAt: string, now: string): void;
  /** Announces the `updated` change (system note, hooks) in the write's transaction. */
  announce(before: Row, after: Row, spentTime: number | 'reset' | null): void;
}

/** Sets the estimate in seconds (0 resets it); GitLab refuses a negative estimate. */
export function setEstimate<Row extends TimeTracked>(ctx: SiteContext, store: TimeTrackingStore<Row>, id: number, seconds: number | null): Row {
  if (seconds === null || seconds < 0) throw invalid({ time_estimate: ['has an invalid format'] });
  return writeTime(ctx, store, id, () => ({ time_estimate: seconds }), null);
}

/**
 * Logs time spent (negative subtracts, never below a total of 0: GitLab's "Time to subtract
 * exceeds the total time spent"), or with `reset` removes every log.
 */
export function logTime<Row extends TimeTracked>(ctx: SiteContext, store: TimeTrackingStore<Row>, id: number, seconds: number | 'reset' | null, spentAt: string | null): Row {
  if (seconds === null) throw invalid({ time_spent: ['has an invalid format'] });
  return writeTime(
    ctx,
    store,
    id,
    (row, now) => {
      if (seconds === 'reset') {
        store.deleteLogs(row.id);
        return { total_time_spent: 0 };
      }
      if (row.total_time_spent + seconds < 0) throw invalid({ time_spent: ['Time to subtract exceeds the total time spent'] });
      store.insertLog(row.id, seconds, spentAt ?? now, now);
      return { total_time_spent: row.total_time_spent + seconds };
    },
    seconds,
  );
}

function writeTime<Row extends TimeTracked>(
  ctx: SiteContext,
  store: TimeTrackingStore<Row>,
  id: number,
  columnsOf: (row: Row, now: string) => Partial<TimeTracked>,
  spentTime: number | 'reset' | null,
): Row {
  return inTransaction(ctx.db, () => {
    const before = store.find(id);
    const now = nowIso();
    const columns = columnsOf(before, now);
    const unchanged = Object.entries(columns).every(([key, value]) => before[key as keyof TimeTracked] === value);
    if (unchanged && (spentTime === null || spentTime === 'reset')) return before;
    store.update(before.id, { ...columns, updated_at: now });
    const after = store.find(before.id);
    store.announce(before, after, spentTime);
    return after;
  });
}

/** An issue's time: its row, its timelogs, and the issue change. */
function issueTime(ctx: SiteContext, actor: Actor, project: ProjectRow): TimeTrackingStore<IssueRow> {
  return {
    find: (id) => findIssueById(ctx.db, id)!,
    update: (id, columns) => updateIssueRow(ctx.db, id, columns),
    deleteLogs: (id) => deleteIssueTimelogs(ctx.db, id),
    insertLog: (id, seconds, spentAt, now) => insertIssueTimelog(ctx.db, id, actor.user.id, seconds, spentAt, now),
    announce: (before, after, spentTime) => announceIssueChange(ctx, issueChange('updated', actor, project, before, after, { added: [], removed: [] }, null, { spentTime })),
  };
}

/** Sets the issue's estimate in seconds (0 resets it). */
export function setTimeEstimate(ctx: SiteContext, actor: Actor, project: ProjectRow, loaded: LoadedIssue, seconds: number | null): IssueRow {
  return setEstimate(ctx, issueTime(ctx, actor, project), loaded.issue.id, seconds);
}

/** Logs time spent on the issue, or with `reset` removes every log. */
export function logSpentTime(ctx: SiteContext, actor: Actor, project: ProjectRow, loaded: LoadedIssue, seconds: number | 'reset' | null, spentAt: string | null): IssueRow {
  return logTime(ctx, issueTime(ctx, actor, project), loaded.issue.id, seconds, spentAt);
}
