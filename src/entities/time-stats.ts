/**
 * GitLab's time tracking view (IssuableTimeStats) and its duration text: a working day is 8 hours,
 * a week 5 days and a month 4 weeks (Gitlab::TimeTrackingFormatter's ChronicDuration settings), and
 * a duration reads like `1mo 2w 3d 4h 30m 10s`.
 */
const UNITS: readonly [string, number][] = [
  ['mo', 4 * 5 * 8 * 3600],
  ['w', 5 * 8 * 3600],
  ['d', 8 * 3600],
  ['h', 3600],
  ['m', 60],
  ['s', 1],
];

/** Seconds in GitLab's short duration text (`3h 30m`); null for 0, as GitLab shows an unset estimate. */
export function humanDuration(seconds: number): string | null {
  if (seconds === 0) return null;
  const sign = seconds < 0 ? '-' : '';
  let rest = Math.abs(seconds);
  const parts: string[] = [];
  for (const [unit, size] of UNITS) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(`${count}${unit}`);
    rest -= count * size;
  }
  return sign + parts.join(' ');
}

/** The seconds of each unit a duration text may use, for the parser beside the time tracking service. */
export const DURATION_UNIT_SECONDS: Readonly<Record<'mo' | 'w' | 'd' | 'h' | 'm' | 's', number>> = Object.fromEntries(UNITS) as Record<
  'mo' | 'w' | 'd' | 'h' | 'm' | 's',
  number
>;

/** IssuableTimeStats: the estimate and the total spent, in seconds and as text. */
export function timeStats(row: { time_estimate: number; total_time_spent: number }) {
  return {
    time_estimate: row.time_estimate,
    total_time_spent: row.total_time_spent,
    human_time_estimate: humanDuration(row.time_estimate),
    human_total_time_spent: humanDuration(row.total_time_spent),
  };
}
