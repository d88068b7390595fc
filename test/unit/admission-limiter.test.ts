import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConcurrencyLimiter, type Refusal } from '../../src/api/admission/limiter.js';
import { createSiteMetrics } from '../../src/observability/metrics.js';

/** A limiter and a log of what happened to each numbered request. */
function limiterOf(limit: number, queueLimit: number, queueTimeoutMs = 1000) {
  const metrics = createSiteMetrics();
  const limiter = new ConcurrencyLimiter('api', { limit, queueLimit, queueTimeoutMs }, metrics.admission);
  const events: string[] = [];
  const releases = new Map<number, () => void>();
  const enter = (n: number) =>
    limiter.enter(
      (release) => {
        events.push(`${n} admitted`);
        releases.set(n, release);
      },
      (reason: Refusal) => events.push(`${n} ${reason}`),
    );
  const rejected = async (reason: Refusal) => (await metrics.registry.getSingleMetric('admission_rejected_total')!.get()).values.find((value) => value.labels.reason === reason)?.value;
  return { limiter, events, releases, enter, rejected };
}

describe('ConcurrencyLimiter', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('admits up to the limit, queues up to the queue limit, refuses the rest at once, and hands slots over in arrival order', async () => {
    const { limiter, events, releases, enter, rejected } = limiterOf(2, 2);
    for (let n = 1; n <= 5; n++) enter(n);
    expect(events).toEqual(['1 admitted', '2 admitted', '5 queue_full']);
    expect(limiter.figures()).toEqual({ limiter: 'api', inFlight: 2, queued: 2, limit: 2 });
    releases.get(2)!();
    releases.get(2)!();
    expect(events.slice(3)).toEqual(['3 admitted']);
    expect(limiter.figures()).toMatchObject({ inFlight: 2, queued: 1 });
    releases.get(1)!();
    releases.get(3)!();
    releases.get(4)!();
    expect(events.slice(4)).toEqual(['4 admitted']);
    expect(limiter.figures()).toMatchObject({ inFlight: 0, queued: 0 });
    expect(await rejected('queue_full')).toBe(1);
    expect(await rejected('queue_timeout')).toBe(0);
  });

  it('refuses a waiter after the queue timeout, and lets a withdrawn waiter leave without a refusal', async () => {
    vi.useFakeTimers();
    const { limiter, events, releases, enter, rejected } = limiterOf(1, 2, 500);
    enter(1);
    enter(2);
    const withdraw = enter(3);
    withdraw();
    expect(limiter.figures()).toMatchObject({ inFlight: 1, queued: 1 });
    vi.advanceTimersByTime(499);
    expect(events).toEqual(['1 admitted']);
    vi.advanceTimersByTime(1);
    expect(events).toEqual(['1 admitted', '2 queue_timeout']);
    releases.get(1)!();
    expect(limiter.figures()).toMatchObject({ inFlight: 0, queued: 0 });
    expect(await rejected('queue_timeout')).toBe(1);
  });

  it('limits nothing at 0, and refuses at once with no queue', () => {
    const unlimited = limiterOf(0, 0);
    for (let n = 1; n <= 100; n++) unlimited.enter(n);
    expect(unlimited.limiter.figures()).toMatchObject({ inFlight: 100, queued: 0 });
    const unqueued = limiterOf(1, 0);
    unqueued.enter(1);
    unqueued.enter(2);
    expect(unqueued.events).toEqual(['1 admitted', '2 queue_full']);
  });
});
