/**
 * Exponential backoff with jitter and a cap, the one way work that failed waits before it is
 * tried again (webhook deliveries, Geo sync and verification, the Geo agent's loop). Pure: the
 * random number is injected, so tests fix it.
 */

/** How a failing operation backs off; the defaults suit production, tests shorten them. */
export interface RetryPolicy {
  /** The delay after the first failure, doubled for each later one. */
  readonly baseMs: number;
  /** No delay exceeds this, jitter and Retry-After included. */
  readonly capMs: number;
}

/** 2^40 times any base is past every cap: the exponent stops there rather than overflow to Infinity. */
const MAX_DOUBLINGS = 40;

/**
 * The delay after `failures` failures in a row (1-based): base * 2^(failures - 1), capped, then
 * scaled by `factor` (the jitter, 1 for none) and capped again.
 */
export function backoffMs(failures: number, policy: RetryPolicy, factor = 1): number {
  const exponential = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(Math.max(0, failures - 1), MAX_DOUBLINGS));
  return Math.round(Math.min(policy.capMs, exponential * factor));
}

/**
 * The delay after failed attempt `attempt` (1-based) of a webhook: "equal jitter" (half fixed,
 * half random) so hooks that failed together do not retry together. A receiver's Retry-After
 * (429/503) is honoured when longer, up to the cap.
 */
export function retryDelayMs(attempt: number, policy: RetryPolicy, random: number, retryAfterMs: number | null = null): number {
  const jittered = backoffMs(attempt, policy, 0.5 + 0.5 * random);
  return retryAfterMs === null ? jittered : Math.max(jittered, Math.min(policy.capMs, retryAfterMs));
}

/**
 * When a registry item that has failed `retryCount` times before should be tried again: spread by
 * ±20 % (still within the cap) so a burst of failures does not retry in lockstep.
 */
export function nextRetryAt(retryCount: number, now: number, policy: RetryPolicy, random: () => number = Math.random): number {
  return now + backoffMs(retryCount + 1, policy, 0.8 + 0.4 * random());
}
