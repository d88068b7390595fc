/** Current time as stored: ISO 8601 UTC with milliseconds. */
export const nowIso = (): string => new Date().toISOString();

/** Today's date (UTC) as `YYYY-MM-DD`. */
export const today = (): string => new Date().toISOString().slice(0, 10);

/** The date `months` months before today, as `YYYY-MM-DD`. */
export function monthsAgo(months: number): string {
  const date = new Date();
  date.setUTCMonth(date.getUTCMonth() - months);
  return date.toISOString().slice(0, 10);
}
