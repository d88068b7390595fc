import http from 'node:http';
import type { ConcurrencyLimiter } from '../../src/api/admission/limiter.js';
import type { TestSite } from './site.js';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A request on its own connection whose body is sent in parts: it holds whatever slot it was given until the body is complete or the client goes away. */
export interface HeldRequest {
  readonly answer: Promise<Answer>;
  finish(rest: string): void;
  abort(): void;
}

export function sendSlowly(url: string, path: string, headers: Record<string, string>, first: string, length: number): HeldRequest {
  const request = http.request(`${url}${path}`, { method: 'POST', agent: false, headers: { ...headers, 'content-length': String(length) } });
  const answer = new Promise<Answer>((resolve, reject) => {
    request.on('response', (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
  // An aborted request's answer is never read.
  answer.catch(() => undefined);
  request.write(first);
  return { answer, finish: (rest) => request.end(rest), abort: () => request.destroy() };
}

/** Resolves once the site's own state says so: the event a test waits for, read where it happens. */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** A series of the site's /-/metrics, 0 when absent. */
export async function metric(site: TestSite, series: string): Promise<number> {
  const text = (await site.api('/-/metrics', { as: null })).text;
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

/** A limiter's slots taken and requests waiting, as the site counts them. */
export const slots = (limiter: ConcurrencyLimiter) => limiter.figures();
