/** Current time as stored: ISO 8601 UTC with milliseconds. */
export const nowIso = (): string => new Date().toISOString();

let cachedDay = '';
let cachedUntil = 0;

/** Today's date (UTC) as `YYYY-MM-DD`; computed once per second, since every request asks. */
export function today(): string {
  const now = Date.now();
  if (now >= cachedUntil) {
    cachedDay = new Date(now).toISOString().slice(0, 10);
    cachedUntil = Math.min(now + 1000, Date.UTC(...ymd(cachedDay)) + 86_400_000);
  }
  return cachedDay;
}

const ymd = (day: string): [number, number, number] => [Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10))];

/** Tomorrow's date (UTC) as `YYYY-MM-DD`. */
export const tomorrow = (): string => new Date(Date.UTC(...ymd(today())) + 86_400_000).toISOString().slice(0, 10);

/** The date `months` months before today, as `YYYY-MM-DD`. */
export function monthsAgo(months: number): string {
  const date = new Date();
  date.setUTCMonth(date.getUTCMonth() - months);
  return date.toISOString().slice(0, 10);
}

/** A token whose expiry date has passed is inactive; one expiring today still works until midnight UTC. */
export function isExpiredDate(expiresAt: string | null): boolean {
  return expiresAt !== null && expiresAt < today();
}
