import type { LoadResult } from './load.js';

/** Whole numbers with thousands separators: `3,412`. */
export const count = (value: number): string => Math.round(value).toLocaleString('en-US');

/** Whole milliseconds: autocannon records latencies at 1 ms resolution, so decimals would be noise. */
export const ms = (value: number): string => `${Math.round(value)} ms`;

/** One measured run: `3,412 req/s, p50 13 ms, p99 24 ms`. */
export const describeLoad = (result: LoadResult): string => `${count(result.rps)} req/s, p50 ${ms(result.p50)}, p99 ${ms(result.p99)}`;
