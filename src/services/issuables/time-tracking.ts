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

/** Sets the issue's estimate in seconds (0 resets it); GitLab refuses a negative estimate. */
export function setTimeEstimate(ctx: SiteContext, actor: Actor, project: ProjectRow, loaded: LoadedIssue, seconds: number | null): IssueRow {
  if (seconds === null || seconds < 0) throw invalid({ time_estimate: ['has an invalid format'] });
  return writeTime(ctx, actor, project, loaded, () => ({ time_estimate: seconds }), null);
}

/**
 * Logs time spent (negative subtracts, never below a total of 0: GitLab's "Time to subtract
 * exceeds the total time spent"), or with `reset` removes every log.
 */
export function logSpentTime(ctx: SiteContext, actor: Actor, project: ProjectRow, loaded: LoadedIssue, seconds: number | 'reset' | null, spentAt: string | null): IssueRow {
  if (seconds === null) throw invalid({ time_spent: ['has an invalid format'] });
  return writeTime(
    ctx,
    actor,
    project,
    loaded,
    (issue, now) => {
      if (seconds === 'reset') {
        deleteIssueTimelogs(ctx.db, issue.id);
        return { total_time_spent: 0 };
      }
      if (issue.total_time_spent + seconds < 0) throw invalid({ time_spent: ['Time to subtract exceeds the total time spent'] });
      insertIssueTimelog(ctx.db, issue.id, actor.user.id, seconds, spentAt ?? now, now);
      return { total_time_spent: issue.total_time_spent + seconds };
    },
    seconds,
  );
}

function writeTime(
  ctx: SiteContext,
  actor: Actor,
  project: ProjectRow,
  loaded: LoadedIssue,
  columnsOf: (issue: IssueRow, now: string) => Partial<Pick<IssueRow, 'time_estimate' | 'total_time_spent'>>,
  spentTime: number | 'reset' | null,
): IssueRow {
  return inTransaction(ctx.db, () => {
    const before = findIssueById(ctx.db, loaded.issue.id)!;
    const now = nowIso();
    const columns = columnsOf(before, now);
    const unchanged = Object.entries(columns).every(([key, value]) => before[key as keyof IssueRow] === value);
    if (unchanged && (spentTime === null || spentTime === 'reset')) return before;
    updateIssueRow(ctx.db, before.id, { ...columns, updated_at: now });
    const issue = findIssueById(ctx.db, before.id)!;
    announceIssueChange(ctx, issueChange('updated', actor, project, before, issue, { added: [], removed: [] }, null, { spentTime }));
    return issue;
  });
}
