/** How long the webhook queue waits before attempt N+1; the defaults suit production, tests shorten them. */
export interface RetryPolicy {
  /** The delay before the second attempt, doubled for each later one. */
  readonly baseMs: number;
  /** No delay exceeds this, Retry-After included. */
  readonly capMs: number;
}

/**
 * The delay after failed attempt `attempt` (1-based): exponential, capped, with "equal jitter"
 * (half fixed, half random) so hooks that failed together do not retry together. A receiver's
 * Retry-After (429/503) is honoured when longer, up to the cap. Pure: `random` is injected.
 */
export function retryDelayMs(attempt: number, policy: RetryPolicy, random: number, retryAfterMs: number | null = null): number {
  const exponential = Math.min(policy.capMs, policy.baseMs * 2 ** Math.max(0, attempt - 1));
  const jittered = Math.round(exponential / 2 + (exponential / 2) * random);
  return retryAfterMs === null ? jittered : Math.max(jittered, Math.min(policy.capMs, retryAfterMs));
}
