import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { destroyAll, ROOT_TOKEN, SiteProcess, startCluster, waitFor, type Cluster } from '../helpers/multisite.js';

/**
 * `geoforge serve` as a supervisor with two request workers and a background worker (src/cluster/).
 * Every request here goes on a new connection: the supervisor hands connections to the workers in
 * turn, so a run of them lands on both, and each test fails on a single-process assumption.
 */
const TWO_WORKERS = { GEOFORGE_WORKERS: '2' };

/** One request on its own connection (a keep-alive pool would stay with one worker). */
function call(site: SiteProcess, method: string, path: string, options: { token?: string | null; body?: unknown } = {}): Promise<{ status: number; text: string }> {
  const token = options.token === undefined ? ROOT_TOKEN : options.token;
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${site.url}${path}`,
      { method, agent: false, headers: { ...(token ? { 'private-token': token } : {}), ...(body ? { 'content-type': 'application/json' } : {}) } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const metric = (text: string, line: RegExp): number => Number(line.exec(text)?.[1] ?? NaN);

/** The pids the supervisor logged for a worker, oldest first. */
const pidsOf = (site: SiteProcess, worker: string): number[] =>
  [...site.output.matchAll(new RegExp(`"worker":"${worker}","pid":(\\d+),"msg":"worker up"`, 'g'))].map((match) => Number(match[1]));

describe('a site as a supervisor with two request workers and a background worker', () => {
  let site: SiteProcess;
  beforeAll(async () => {
    site = await SiteProcess.create({ name: 'workers', role: 'primary', env: { ...TWO_WORKERS, GEOFORGE_RATE_LIMIT_EXEMPT_LOOPBACK: 'false' } });
    await site.start({ timeoutMs: 40_000 });
  }, 60_000);
  afterAll(() => destroyAll([site]));

  it('/-/metrics adds up every worker, with one process series per worker', async () => {
    for (let i = 0; i < 12; i++) expect((await call(site, 'GET', '/api/v4/version')).status).toBe(200);
    const text = (await call(site, 'GET', '/-/metrics', { token: null })).text;
    // A scrape of one worker would count about half of them.
    expect(metric(text, /^http_requests_total\{method="GET",route="\/api\/v4\/version",status="200"\} (\d+)$/m)).toBe(12);
    for (const worker of ['request-1', 'request-2', 'background']) expect(text).toMatch(new RegExp(`^process_resident_memory_bytes\\{worker="${worker}"\\} \\d+`, 'm'));
    expect(text).toMatch(/^geoforge_worker_restarts_total\{kind="request"\} 0$/m);
  });

  it('keeps one throttle budget per token for the whole site, and every worker sees a settings change', async () => {
    const settings = await call(site, 'PUT', '/api/v4/application/settings', {
      body: { throttle_authenticated_api_enabled: true, throttle_authenticated_api_requests_per_period: 10, throttle_authenticated_api_period_in_seconds: 3600 },
    });
    expect(settings.status).toBe(200);
    // The budget is per credential, valid or not: these answer 401 until it is spent, then 429.
    const statuses = [];
    for (let i = 0; i < 20; i++) statuses.push((await call(site, 'GET', '/api/v4/user', { token: 'glpat-not-a-real-token-at-all' })).status);
    expect(statuses.filter((status) => status === 429)).toHaveLength(10);
    expect(statuses.slice(0, 10).every((status) => status === 401)).toBe(true);
    await call(site, 'PUT', '/api/v4/application/settings', { body: { throttle_authenticated_api_enabled: false } });
  });

  it('a request worker killed with SIGKILL: the other serves meanwhile, it is restarted and counted', async () => {
    const [pid] = pidsOf(site, 'request-1');
    expect(pid).toBeGreaterThan(0);
    process.kill(pid!, 'SIGKILL');
    await waitFor(async () => metric((await call(site, 'GET', '/-/metrics', { token: null })).text, /^geoforge_worker_restarts_total\{kind="request"\} (\d+)$/m) === 1, { timeoutMs: 10_000, message: 'restart counted' });
    // request-1 is booting again: request-2 answers these.
    for (let i = 0; i < 10; i++) expect((await call(site, 'GET', '/api/v4/version')).status).toBe(200);
    await waitFor(() => pidsOf(site, 'request-1').length === 2, { timeoutMs: 30_000, message: 'request-1 back' });
    await waitFor(async () => (await call(site, 'GET', '/-/readiness', { token: null })).status === 200, { timeoutMs: 10_000, message: 'ready again' });
    expect(site.output).toMatch(/"worker":"request-1".*"msg":"worker died; restarting it"/);
  }, 60_000);

  it('work queued by request workers runs in the background worker: webhook deliveries and fork clones', async () => {
    const received: string[] = [];
    const receiver: Server = createServer((req, res) => {
      received.push(String(req.headers['x-gitlab-event']));
      res.end('ok');
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const project = JSON.parse((await call(site, 'POST', '/api/v4/projects', { body: { name: 'queued-work', initialize_with_readme: true } })).text);
      const hook = await call(site, 'POST', `/api/v4/projects/${project.id}/hooks`, { body: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, issues_events: true } });
      expect(hook.status).toBe(201);
      for (let i = 0; i < 4; i++) expect((await call(site, 'POST', `/api/v4/projects/${project.id}/issues`, { body: { title: `issue ${i}` } })).status).toBe(201);
      await waitFor(() => received.length === 4, { timeoutMs: 10_000, message: 'four deliveries' });
      expect(received).toEqual(Array(4).fill('Issue Hook'));
      const group = JSON.parse((await call(site, 'POST', '/api/v4/groups', { body: { name: 'fork-target', path: 'fork-target' } })).text);
      const fork = await call(site, 'POST', `/api/v4/projects/${project.id}/fork`, { body: { namespace: String(group.id) } });
      expect(fork.status, fork.text).toBe(201);
      const forkId = JSON.parse(fork.text).id;
      await waitFor(async () => JSON.parse((await call(site, 'GET', `/api/v4/projects/${forkId}`)).text).import_status === 'finished', { timeoutMs: 15_000, message: 'fork cloned' });
    } finally {
      receiver.close();
    }
  }, 40_000);

  it('SIGTERM drains every worker and exits 0', async () => {
    const child = site.child!;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(site.output).toMatch(/"msg":"every worker stopped"/);
  }, 40_000);
});

describe('synchronous replication with two request workers', () => {
  let cluster: Cluster;
  beforeAll(async () => {
    cluster = await startCluster(1, { primaryEnv: { ...TWO_WORKERS, GEOFORGE_GEO_SYNC_REPLICAS: '1', GEOFORGE_GEO_SYNC_TIMEOUT_MS: '8000' } });
  }, 90_000);
  afterAll(() => cluster?.destroy());

  it('a write answered by one worker is released by the acknowledgement the other received', async () => {
    const { primary } = cluster;
    // The secondary's long poll stays on one worker's connection; half of these writes land on the other.
    for (let i = 0; i < 8; i++) {
      const started = Date.now();
      expect((await call(primary, 'POST', '/api/v4/groups', { body: { name: `sync-${i}`, path: `sync-${i}` } })).status).toBe(201);
      // Woken by the event, not by the 8 s timeout.
      expect(Date.now() - started).toBeLessThan(4_000);
    }
    const text = (await call(primary, 'GET', '/-/metrics', { token: null })).text;
    expect(metric(text, /^geo_sync_replication_writes_total\{outcome="timeout"\} (\d+)$/m)).toBe(0);
    expect(metric(text, /^geo_sync_replication_writes_total\{outcome="applied"\} (\d+)$/m)).toBeGreaterThanOrEqual(8);
  }, 60_000);
});
