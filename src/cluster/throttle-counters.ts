/** One request counted against a throttle's fixed window. */
export interface ThrottleHit {
  readonly kind: 'authenticated' | 'unauthenticated';
  /** The credential's digest or the client IP. */
  readonly key: string;
  /** The window's number (time / period) and its period. */
  readonly window: number;
  readonly periodMs: number;
}

/**
 * The throttles' counters (api/middleware/rate-limit.ts): one budget per token and per IP for the
 * whole site. In the embedded mode they live in the site's process; with workers, in the
 * supervisor, which each request worker asks over the bus. A window ends, its counters go.
 */
export class SiteThrottleCounters {
  private readonly budgets = new Map<string, { periodMs: number; window: number; counts: Map<string, number> }>();

  /** Counts the request; answers how many the key made in this window, this one included. */
  hit({ kind, key, window, periodMs }: ThrottleHit): number {
    let budget = this.budgets.get(kind);
    if (!budget || budget.window !== window || budget.periodMs !== periodMs) {
      budget = { periodMs, window, counts: new Map() };
      this.budgets.set(kind, budget);
    }
    const observed = (budget.counts.get(key) ?? 0) + 1;
    budget.counts.set(key, observed);
    return observed;
  }
}
