/** Seconds per measured round: BENCH_SECONDS (default 10, as BENCHMARKS.md asks; 1 under BENCH_SMOKE); lower it for quick runs. */
export function roundSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.BENCH_SECONDS;
  if (raw === undefined || raw === '') return env.BENCH_SMOKE === '1' ? 1 : 10;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 1) throw new Error(`BENCH_SECONDS: expected a whole number of seconds >= 1, got "${raw}"`);
  return seconds;
}

/**
 * BENCH_SMOKE=1 runs a scenario at a smoke size: every code path once, on small data, one short
 * round, so that `npm test` notices a scenario that broke. Its figures mean nothing.
 */
export const SMOKE = process.env.BENCH_SMOKE === '1';

/** A size or count: `full` normally, `smoke` under BENCH_SMOKE. */
export const sized = (full: number, smoke: number): number => (SMOKE ? smoke : full);

/** Requests one load run makes at most under BENCH_SMOKE: a few hundred. */
export const SMOKE_REQUESTS = 300;

/** How long a load at `rate` requests/s runs: `seconds`, cut to SMOKE_REQUESTS requests under BENCH_SMOKE. */
export const loadSeconds = (rate: number, seconds: number): number => (SMOKE ? Math.min(seconds, SMOKE_REQUESTS / rate) : seconds);

/** Warm-ups run at full size only: a smoke run checks that a scenario's code paths work, not its figures. */
export const WARM_UP = !SMOKE;
