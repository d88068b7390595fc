import { createServer, request as httpRequest, type Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geoAuthorization } from '../../src/geo/signing.js';
import { destroyAll, GEO_SECRET, ROOT_TOKEN, SiteProcess, startCluster, waitFor, type Cluster } from '../helpers/multisite.js';
import { call, pidsOf, pinnedTo, servedBy, untilEachServed, type WorkerCall } from '../helpers/workers.js';

/**
 * `geoforge serve` as a supervisor with two request workers and a background worker (src/cluster/).
 * Every request here goes on a new connection (helpers/workers.ts): the supervisor hands connections
 * to the workers in turn, so a run of them lands on both, and each test fails on a single-process
 * assumption. Which worker answered comes from the request's log line.
 */
const TWO_WORKERS = { GEOFORGE_WORKERS: '2' };
const REQUEST_WORKERS = ['request-1', 'request-2'];

const metric = (text: string, line: RegExp): number => Number(line.exec(text)?.[1] ?? NaN);

describe('a site as a supervisor with two request workers and a background worker', () => {
  let site: SiteProcess;
  beforeAll(async () => {
    site = await SiteProcess.create({ name: 'workers', role: 'primary', env: { ...TWO_WORKERS, GEOFORGE_RATE_LIMIT_EXEMPT_LOOPBACK: 'false', GEOFORGE_GEO_HEARTBEAT_SECONDS: '59' } });
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

  it('a long poll parked in one request worker is woken by a write the other answered, not by its timeout', async () => {
    const after = site.lastEventId();
    const [one, two] = [await pinnedTo(site, 'request-1'), await pinnedTo(site, 'request-2')];
    const [probeOne, probeTwo] = [await pinnedTo(site, 'request-1'), await pinnedTo(site, 'request-2')];
    try {
      const poll = (agent: Agent) =>
        call(site, 'GET', `/api/v4/geo/events?after=${after}&wait_ms=30000`, { token: null, agent, headers: { authorization: geoAuthorization(GEO_SECRET, 'long-poller', { method: 'GET', path: '/events' }) } });
      let answered = 0;
      const polls = [poll(one), poll(two)];
      for (const polled of polls) void polled.finally(() => answered++);
      // Parked: each worker answered a request sent after its poll (a worker reads its connections in turn).
      for (const agent of [probeOne, probeTwo]) expect((await call(site, 'GET', '/api/v4/version', { agent })).status).toBe(200);
      expect(answered).toBe(0);
      expect(site.lastEventId()).toBe(after);
      const writeStarted = Date.now();
      const write = await call(site, 'POST', '/api/v4/groups', { body: { name: 'woken', path: 'woken' } });
      expect(write.status, write.text).toBe(201);
      const answers = await Promise.all(polls);
      const wokenAfterMs = Date.now() - writeStarted;
      // The poll in the worker that did not answer the write was woken across processes: seconds after the write, far from its 30 s.
      const writer = await servedBy(site, write.requestId);
      const other = answers[writer === 'request-1' ? 1 : 0]!;
      expect(await servedBy(site, other.requestId)).not.toBe(writer);
      expect(wokenAfterMs).toBeLessThan(5_000);
      for (const answer of answers) {
        expect(answer.status, answer.text).toBe(200);
        expect(answer.ms).toBeLessThan(20_000);
        const body = JSON.parse(answer.text);
        expect(body.lastEventId).toBeGreaterThan(after);
        expect(body.events.length).toBeGreaterThan(0);
      }
    } finally {
      for (const agent of [one, two, probeOne, probeTwo]) agent.destroy();
    }
  }, 45_000);

  it('a site-to-site token is good once for the whole site: sent to both workers at once, one takes it', async () => {
    const [one, two] = [await pinnedTo(site, 'request-1'), await pinnedTo(site, 'request-2')];
    try {
      for (let round = 0; round < 3; round++) {
        const authorization = geoAuthorization(GEO_SECRET, 'replayer', { method: 'GET', path: '/events' });
        const path = `/api/v4/geo/events?after=${site.lastEventId()}&wait_ms=0`;
        const answers = await Promise.all([one, two, undefined, undefined].map((agent) => call(site, 'GET', path, { token: null, agent, headers: { authorization } })));
        expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401, 401, 401]);
        expect(new Set(await Promise.all(answers.map((answer) => servedBy(site, answer.requestId))))).toEqual(new Set(REQUEST_WORKERS));
      }
    } finally {
      one.destroy();
      two.destroy();
    }
  });

  it('a freeze taken through one worker pauses the writes of every worker; lifted, every worker writes again', async () => {
    const freeze = (leaseMs: number) =>
      call(site, 'POST', '/api/v4/geo/freeze', { token: null, body: { lease_ms: leaseMs }, headers: { authorization: geoAuthorization(GEO_SECRET, 'promoter', { method: 'POST', path: '/freeze' }) } });
    const frozen = await freeze(30_000);
    expect(frozen.status, frozen.text).toBe(201);
    expect(JSON.parse(frozen.text)).toMatchObject({ drained: true, last_event_id: site.lastEventId() });
    const refused = await untilEachServed(site, REQUEST_WORKERS, (i) => call(site, 'POST', '/api/v4/groups', { body: { name: `frozen-${i}`, path: `frozen-${i}` } }));
    for (const answer of refused) {
      expect(answer.status, `${answer.worker}: ${answer.text}`).toBe(503);
      expect(JSON.parse(answer.text).message).toBe('503 Service Unavailable - writes are paused: promoter is being promoted to primary');
    }
    expect((await freeze(0)).status).toBe(201);
    const taken = await untilEachServed(site, REQUEST_WORKERS, (i) => call(site, 'POST', '/api/v4/groups', { body: { name: `thawed-${i}`, path: `thawed-${i}` } }));
    for (const answer of taken) expect(answer.status, `${answer.worker}: ${answer.text}`).toBe(201);
  });

  it('a freeze taken through one worker waits for a write in flight in the other before it names the last event', async () => {
    const [one, two, probeOne, probeTwo] = [await pinnedTo(site, 'request-1'), await pinnedTo(site, 'request-2'), await pinnedTo(site, 'request-1'), await pinnedTo(site, 'request-2')];
    try {
      // A write in request-2 that passed the write gate (it counts writes from their headers) and waits for the rest of its body.
      const body = JSON.stringify({ name: 'in-flight', path: 'in-flight' });
      let finishWrite!: () => void;
      const write = new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = httpRequest(`${site.url}/api/v4/groups`, { method: 'POST', agent: two, headers: { 'private-token': ROOT_TOKEN, 'content-type': 'application/json', 'content-length': String(body.length) } }, (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
        req.on('error', reject);
        req.write(body.slice(0, 10));
        finishWrite = () => req.end(body.slice(10));
      });
      // Awaited below; a failure before that (the connection destroyed) must not go unhandled.
      write.catch(() => undefined);
      // request-2 read the write's headers: it answered a request sent after them.
      expect((await call(site, 'GET', '/api/v4/version', { agent: probeTwo })).status).toBe(200);
      let frozen: WorkerCall | null = null;
      const freeze = call(site, 'POST', '/api/v4/geo/freeze', {
        agent: one,
        token: null,
        body: { lease_ms: 30_000 },
        headers: { authorization: geoAuthorization(GEO_SECRET, 'promoter', { method: 'POST', path: '/freeze' }) },
      }).then((answer) => (frozen = answer));
      // request-1 froze (its writes are refused): its freeze now waits for request-2's write.
      await waitFor(async () => (await call(site, 'POST', '/api/v4/groups', { agent: probeOne, body: { name: 'refused', path: 'refused' } })).status === 503, { message: 'request-1 frozen' });
      expect(frozen).toBeNull();
      finishWrite();
      const written = await write;
      // Admitted before the freeze, it completes; the freeze then names an event at or after it.
      expect(written.status, written.text).toBe(201);
      const lastEventId = site.lastEventId();
      const answer = await freeze;
      expect(answer.status, answer.text).toBe(201);
      expect(JSON.parse(answer.text)).toEqual({ drained: true, last_event_id: lastEventId });
    } finally {
      await call(site, 'POST', '/api/v4/geo/freeze', { token: null, body: { lease_ms: 0 }, headers: { authorization: geoAuthorization(GEO_SECRET, 'promoter', { method: 'POST', path: '/freeze' }) } });
      for (const agent of [one, two, probeOne, probeTwo]) agent.destroy();
    }
  });

  it('reads through one worker follow a branch the other moved: nothing keyed by a ref goes stale', async () => {
    const project = JSON.parse((await call(site, 'POST', '/api/v4/projects', { body: { name: 'ref-caches', initialize_with_readme: true } })).text);
    const branch = project.default_branch as string;
    const basic = `Basic ${Buffer.from(`root:${ROOT_TOKEN}`).toString('base64')}`;
    const [reader, writer] = [await pinnedTo(site, 'request-1'), await pinnedTo(site, 'request-2')];
    try {
      const read = async () => {
        const [raw, head, advertisement] = await Promise.all([
          call(site, 'GET', `/api/v4/projects/${project.id}/repository/files/README.md/raw?ref=${branch}`, { agent: reader }),
          call(site, 'GET', `/api/v4/projects/${project.id}/repository/branches/${branch}`, { agent: reader }),
          call(site, 'GET', `/${project.path_with_namespace}.git/info/refs?service=git-upload-pack`, { agent: reader, token: null, headers: { authorization: basic } }),
        ]);
        for (const answer of [raw, head, advertisement]) expect(await servedBy(site, answer.requestId)).toBe('request-1');
        return { content: raw.text, sha: JSON.parse(head.text).commit.id as string, advertisement: advertisement.text };
      };
      const before = await read();
      expect(before.advertisement).toContain(`${before.sha} refs/heads/${branch}`);
      // Twice: the reader's caches (ref advertisement, object reader, packed refs) are warm for this state.
      expect(await read()).toEqual(before);
      for (let i = 1; i <= 2; i++) {
        const commit = await call(site, 'POST', `/api/v4/projects/${project.id}/repository/commits`, {
          agent: writer,
          body: { branch, commit_message: `version ${i}`, actions: [{ action: 'update', file_path: 'README.md', content: `version ${i}\n` }] },
        });
        expect(commit.status, commit.text).toBe(201);
        const after = await read();
        expect(after.sha).toBe(JSON.parse(commit.text).id);
        expect(after.content).toBe(`version ${i}\n`);
        expect(after.advertisement).toContain(`${after.sha} refs/heads/${branch}`);
      }
    } finally {
      reader.destroy();
      writer.destroy();
    }
  });

  it('a token revoked through one worker is refused at once by the other, which had its user cached', async () => {
    const created = await call(site, 'POST', '/api/v4/users/1/personal_access_tokens', { body: { name: 'cached', scopes: ['api'] } });
    expect(created.status, created.text).toBe(201);
    const { id, token } = JSON.parse(created.text);
    const [reader, writer] = [await pinnedTo(site, 'request-1'), await pinnedTo(site, 'request-2')];
    try {
      for (let i = 0; i < 2; i++) expect((await call(site, 'GET', '/api/v4/user', { agent: reader, token })).status).toBe(200);
      expect((await call(site, 'DELETE', `/api/v4/personal_access_tokens/${id}`, { agent: writer })).status).toBe(204);
      const refused = await call(site, 'GET', '/api/v4/user', { agent: reader, token });
      expect(refused.status).toBe(401);
      expect(await servedBy(site, refused.requestId)).toBe('request-1');
    } finally {
      reader.destroy();
      writer.destroy();
    }
  });

  it('merges into one branch through both workers at once: each merge request merges once, none is lost', async () => {
    const project = JSON.parse((await call(site, 'POST', '/api/v4/projects', { body: { name: 'ref-locks', initialize_with_readme: true } })).text);
    const target = project.default_branch as string;
    const api = `/api/v4/projects/${project.id}`;
    const mergeRequest = async (name: string) => {
      const commit = await call(site, 'POST', `${api}/repository/commits`, {
        body: { branch: name, start_branch: target, commit_message: name, actions: [{ action: 'create', file_path: `${name}.txt`, content: `${name}\n` }] },
      });
      expect(commit.status, commit.text).toBe(201);
      const created = await call(site, 'POST', `${api}/merge_requests`, { body: { source_branch: name, target_branch: target, title: name } });
      expect(created.status, created.text).toBe(201);
      return { iid: JSON.parse(created.text).iid as number, head: JSON.parse(commit.text).id as string };
    };
    const [one, two] = [await pinnedTo(site, 'request-1'), await pinnedTo(site, 'request-2')];
    const merged: string[] = [];
    try {
      for (let round = 0; round < 2; round++) {
        // The same merge request accepted through both workers at once: one merge, the other answer refuses.
        const same = await mergeRequest(`same-${round}`);
        const both = await Promise.all([one, two].map((agent) => call(site, 'PUT', `${api}/merge_requests/${same.iid}/merge`, { agent, body: {} })));
        expect(both.map((answer) => answer.status).sort(), both.map((answer) => answer.text.slice(0, 300)).join('\n')).toEqual([200, 406]);
        merged.push(same.head);
        // Two merge requests accepted at once, one through each worker: both merge.
        const [first, second] = [await mergeRequest(`first-${round}`), await mergeRequest(`second-${round}`)];
        const pair = await Promise.all([call(site, 'PUT', `${api}/merge_requests/${first.iid}/merge`, { agent: one, body: {} }), call(site, 'PUT', `${api}/merge_requests/${second.iid}/merge`, { agent: two, body: {} })]);
        for (const answer of pair) expect(answer.status, answer.text).toBe(200);
        merged.push(first.head, second.head);
      }
      const history = JSON.parse((await call(site, 'GET', `${api}/repository/commits?ref_name=${target}&per_page=100`)).text) as Array<{ parent_ids: string[] }>;
      const merges = history.filter((commit) => commit.parent_ids.length === 2).map((commit) => commit.parent_ids[1]);
      // Every source head merged exactly once.
      expect(merges.sort()).toEqual([...merged].sort());
    } finally {
      one.destroy();
      two.destroy();
    }
  }, 60_000);

  it('wiki pages written through both workers at once all land: wiki writes queue across processes', async () => {
    const project = JSON.parse((await call(site, 'POST', '/api/v4/projects', { body: { name: 'wiki-writes' } })).text);
    const wiki = `/api/v4/projects/${project.id}/wikis`;
    expect((await call(site, 'POST', wiki, { body: { title: 'home', content: 'home' } })).status).toBe(201);
    const [one, two] = [await pinnedTo(site, 'request-1'), await pinnedTo(site, 'request-2')];
    try {
      for (let round = 0; round < 3; round++) {
        const pair = await Promise.all([one, two].map((agent, i) => call(site, 'POST', wiki, { agent, body: { title: `page-${round}-${i}`, content: `page ${round} ${i}` } })));
        // Each write reads the wiki's branch, builds on it and moves it: without a queue across workers one would find it moved (400).
        for (const answer of pair) expect(answer.status, answer.text).toBe(201);
      }
      const pages = JSON.parse((await call(site, 'GET', wiki)).text) as Array<{ slug: string }>;
      expect(pages.map((page) => page.slug).sort()).toEqual(['home', ...[0, 1, 2].flatMap((round) => [`page-${round}-0`, `page-${round}-1`])].sort());
    } finally {
      one.destroy();
      two.destroy();
    }
  });

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

  it('a write that timed out in one worker degrades the whole site: the other worker answers its next write at once', async () => {
    const { primary, secondaries } = cluster;
    await secondaries[0]!.kill('SIGKILL');
    const first = await call(primary, 'POST', '/api/v4/groups', { body: { name: 'alone', path: 'alone' } });
    expect(first.status, first.text).toBe(201);
    expect(first.headers['x-geoforge-sync-replication']).toBe('timeout');
    const writer = await servedBy(primary, first.requestId);
    // Each worker, the one that timed out and the other, answers without the 8 s wait.
    const next = await untilEachServed(primary, REQUEST_WORKERS, (i) => call(primary, 'POST', '/api/v4/groups', { body: { name: `degraded-${i}`, path: `degraded-${i}` } }));
    for (const answer of next) {
      expect(answer.status, `${answer.worker}: ${answer.text}`).toBe(201);
      expect(answer.headers['x-geoforge-sync-replication'], answer.worker).toBe('unconfirmed');
      expect(answer.ms, `${answer.worker} (the timeout was in ${writer})`).toBeLessThan(4_000);
    }
  }, 60_000);
});
