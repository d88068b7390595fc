/** Seconds per measured round: BENCH_SECONDS (default 10, as BENCHMARKS.md asks); lower it for quick runs. */
export function roundSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.BENCH_SECONDS;
  if (raw === undefined || raw === '') return 10;
  const seconds = Number(raw);
  if (!Number.isInteger(seconds) || seconds < 1) throw new Error(`BENCH_SECONDS: expected a whole number of seconds >= 1, got "${raw}"`);
  return seconds;
}
