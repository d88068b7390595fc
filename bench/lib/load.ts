import autocannon from 'autocannon';
import { SMOKE, SMOKE_REQUESTS } from './settings.js';

export interface LoadSpec {
  /** Base URL of the server under test. */
  readonly url: string;
  /** The path of the n-th request, so requests can spread over many rows. */
  readonly path: (n: number) => string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly connections: number;
  readonly seconds: number;
  /** Fixed total requests per second (open loop); closed loop when absent. */
  readonly rate?: number;
  /** GET when absent. */
  readonly method?: string;
  /** The body of the n-th request (a write), sent as given. */
  readonly body?: (n: number) => string;
}

export interface LoadResult {
  readonly rps: number;
  /** Mean latency in ms, with decimals (the percentiles are whole milliseconds). */
  readonly mean: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly requests: number;
  /** Non-2xx responses plus connection errors and timeouts. */
  readonly failed: number;
}

/** One autocannon run in this process (pinned to the load core by the caller); under BENCH_SMOKE, a few hundred requests at most. */
export async function runLoad(spec: LoadSpec): Promise<LoadResult> {
  let n = 0;
  const result = await autocannon({
    url: spec.url,
    connections: spec.connections,
    // Under BENCH_SMOKE a run ends after a few hundred requests (or its open-loop rate's share of them).
    ...(SMOKE ? { amount: Math.min(SMOKE_REQUESTS, spec.rate ? Math.ceil(spec.rate * spec.seconds) : SMOKE_REQUESTS) } : { duration: spec.seconds }),
    overallRate: spec.rate,
    headers: { ...spec.headers },
    requests: [
      {
        ...(spec.method ? { method: spec.method } : {}),
        setupRequest: (request) => {
          const index = n++;
          return { ...request, path: spec.path(index), ...(spec.body ? { body: spec.body(index) } : {}) };
        },
      },
    ],
  });
  return {
    rps: result.requests.average,
    mean: result.latency.average,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    requests: result.requests.total,
    failed: result.non2xx + result.errors,
  };
}

/** A bench whose target answers errors measures nothing: stop the scenario instead of reporting it. */
export function assertAllOk(label: string, result: LoadResult): void {
  if (result.failed > 0) throw new Error(`${label}: ${result.failed} of ${result.requests} requests failed (non-2xx, error or timeout)`);
  if (result.requests === 0) throw new Error(`${label}: no request completed`);
}
