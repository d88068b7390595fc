import { describe, expect, it } from 'vitest';
import { backoffMs, nextRetryAt, retryDelayMs } from '../../src/backoff.js';

describe('backoff', () => {
  it('doubles from the base per failure and stops at the cap, without jitter (the Geo agent)', () => {
    const policy = { baseMs: 400, capMs: 2_000 };
    expect([1, 2, 3, 4, 5].map((failures) => backoffMs(failures, policy))).toEqual([400, 800, 1600, 2000, 2000]);
    expect(backoffMs(1_000_000, policy)).toBe(2000);
    expect(backoffMs(1, policy, 10)).toBe(2000);
  });
});

describe('webhook retry delay', () => {
  const policy = { baseMs: 1000, capMs: 10_000 };
  it('doubles per attempt with equal jitter, up to the cap', () => {
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, policy, 0))).toEqual([500, 1000, 2000, 4000]);
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, policy, 1))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelayMs(10, policy, 1)).toBe(10_000);
    expect(retryDelayMs(10, policy, 0)).toBe(5000);
  });

  it('honours a longer Retry-After, capped', () => {
    expect(retryDelayMs(1, policy, 0, 3000)).toBe(3000);
    expect(retryDelayMs(1, policy, 0, 100)).toBe(500);
    expect(retryDelayMs(1, policy, 0, 3_600_000)).toBe(10_000);
  });
});

describe('retry backoff', () => {
  const policy = { baseMs: 1000, capMs: 60_000 };
  it('doubles from the base with ±20 % jitter and never passes the cap', () => {
    expect(nextRetryAt(0, 0, policy, () => 0.5)).toBe(1000);
    expect(nextRetryAt(3, 0, policy, () => 0.5)).toBe(8000);
    expect(nextRetryAt(3, 0, policy, () => 0)).toBe(6400);
    expect(nextRetryAt(3, 0, policy, () => 1)).toBe(9600);
    expect(nextRetryAt(30, 100, policy, () => 1)).toBe(60_100);
    expect(nextRetryAt(5000, 0, policy, () => 0.5)).toBe(60_000);
  });
});
