/** How stored column values show in the API's JSON, the same in every view. */

/** SQLite keeps booleans as 0/1; the API shows true/false. */
export const flag = (value: number): boolean => value === 1;

/**
 * A time as the API shows it: stored times are already ISO 8601 (nowIso, git's %cI), so they pass
 * through, and an absent one (a job not started yet, a user never signed in) becomes null.
 */
export function isoTime(value: string): string;
export function isoTime(value: string | null | undefined): string | null;
export function isoTime(value: string | null | undefined): string | null {
  return value ?? null;
}
