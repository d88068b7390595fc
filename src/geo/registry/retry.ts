/** How failed syncs back off: doubling from `baseMs`, never past `capMs`. */
export interface RetryPolicy {
  readonly baseMs: number;
  readonly capMs: number;
}

/**
 * When an item that has failed `retryCount` times before should be tried again: base * 2^count,
 * capped, spread by ±20 % jitter (still within the cap) so a burst of failures does not retry in
 * lockstep. Pure: `random` is injected so tests can fix it.
 */
export function nextRetryAt(retryCount: number, now: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const delay = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(retryCount, 40));
  return now + Math.round(Math.min(policy.capMs, delay * (0.8 + 0.4 * random())));
}
