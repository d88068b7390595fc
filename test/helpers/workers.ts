import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { ROOT_TOKEN, waitFor, type SiteProcess } from './multisite.js';

/**
 * Requests to a site run as a supervisor with workers (src/cluster/), and which worker answered.
 * Each request goes on its own connection: the supervisor hands connections to the workers in
 * turn, so a run of them lands on every request worker (a keep-alive pool would stay with one).
 */

export interface WorkerCall {
  readonly status: number;
  readonly text: string;
  readonly headers: IncomingHttpHeaders;
  /** The X-Request-Id it was sent with: servedBy() finds its log line. */
  readonly requestId: string;
  /** From sending the request to the end of the answer. */
  readonly ms: number;
}

let sequence = 0;

/**
 * One request on its own connection, as root unless `token` says otherwise (null: none); through
 * `agent` (a connection pinned to one worker, pinnedTo()) when given.
 */
export function call(
  site: SiteProcess,
  method: string,
  path: string,
  options: { token?: string | null; body?: unknown; headers?: Record<string, string>; agent?: Agent } = {},
): Promise<WorkerCall> {
  const token = options.token === undefined ? ROOT_TOKEN : options.token;
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const requestId = `cw-${process.pid}-${++sequence}`;
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${site.url}${path}`,
      {
        method,
        agent: options.agent ?? false,
        headers: { 'x-request-id': requestId, ...(token ? { 'private-token': token } : {}), ...(body ? { 'content-type': 'application/json' } : {}), ...options.headers },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers, requestId, ms: Date.now() - started }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The worker whose request log line has this request id (logged once the answer finished). */
export async function servedBy(site: SiteProcess, requestId: string): Promise<string> {
  const line = new RegExp(`"worker":"([\\w-]+)"[^\\n]*"request_id":"${requestId}"`);
  return waitFor(() => line.exec(site.output)?.[1], { timeoutMs: 5_000, message: `the log line of ${requestId}` });
}

/** The server-side duration of a request, from its log line. */
export async function loggedDurationMs(site: SiteProcess, requestId: string): Promise<number> {
  const line = new RegExp(`"request_id":"${requestId}"[^\\n]*"duration_ms":([\\d.]+)`);
  return Number(await waitFor(() => line.exec(site.output)?.[1], { timeoutMs: 5_000, message: `the duration of ${requestId}` }));
}

/** The pids the supervisor logged for a worker, oldest first. */
export const pidsOf = (site: SiteProcess, worker: string): number[] =>
  [...site.output.matchAll(new RegExp(`"worker":"${worker}","pid":(\\d+),"msg":"worker up"`, 'g'))].map((match) => Number(match[1]));

/**
 * Sends requests made by `make` (each on its own connection) until every worker in `workers` served
 * at least one; resolves to every answer with its worker. Bounded: the supervisor's round robin
 * reaches each worker within a few connections.
 */
export async function untilEachServed(
  site: SiteProcess,
  workers: readonly string[],
  make: (index: number) => Promise<WorkerCall>,
  max = 24,
): Promise<Array<WorkerCall & { worker: string }>> {
  const answers: Array<WorkerCall & { worker: string }> = [];
  for (let i = 0; i < max; i++) {
    const answer = await make(i);
    answers.push({ ...answer, worker: await servedBy(site, answer.requestId) });
    if (workers.every((worker) => answers.some((served) => served.worker === worker))) return answers;
  }
  throw new Error(`${max} requests did not reach every one of ${workers.join(', ')}: ${answers.map((answer) => answer.worker).join(', ')}`);
}

/**
 * A keep-alive connection to `worker`: its requests all go to that worker, one at a time. New
 * connections are opened (the supervisor hands them out in turn) until one reaches it; destroy() it after.
 */
export async function pinnedTo(site: SiteProcess, worker: string): Promise<Agent> {
  for (let i = 0; i < 12; i++) {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const probe = await call(site, 'GET', '/api/v4/version', { agent });
    if (probe.status === 200 && (await servedBy(site, probe.requestId)) === worker) return agent;
    agent.destroy();
  }
  throw new Error(`no connection to ${worker} in 12 tries`);
}
