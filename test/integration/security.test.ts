import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaults } from '../../src/config.js';
import { fireProjectHooks } from '../../src/services/hooks/fire.js';
import { guardedLookup, isLocalAddress, resolveOutboundAddress } from '../../src/services/local-network.js';
import { createProject, createUser, tokenFor, type TestUser } from '../helpers/factories.js';
import { waitFor } from '../helpers/multisite.js';
import { startSite, type TestSite } from '../helpers/site.js';

/** A loopback HTTP receiver that records each request and answers what `answer` says. */
async function startReceiver(answer: (req: IncomingMessage) => { status: number; headers?: Record<string, string> } = () => ({ status: 200 })) {
  const received: string[] = [];
  const server: Server = createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    req.resume();
    req.on('end', () => {
      const { status, headers } = answer(req);
      res.writeHead(status, headers).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const logsOf = (site: TestSite, hookId: number) =>
  site.site.db.prepare('SELECT url, response_status, error FROM web_hook_logs WHERE hook_id = ? ORDER BY id').all(hookId) as {
    url: string;
    response_status: number | null;
    error: string | null;
  }[];

describe('the local network is off limits to outbound requests by default', () => {
  it('classifies loopback, link-local, private, shared, unspecified and mapped addresses as local', () => {
    for (const local of ['127.0.0.1', '127.1.2.3', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:169.254.169.254', '[::1]']) {
      expect(isLocalAddress(local), local).toBe(true);
    }
    for (const remote of ['8.8.8.8', '172.32.0.1', '192.169.0.1', '2001:4860:4860::8888', '::ffff:8.8.8.8']) {
      expect(isLocalAddress(remote), remote).toBe(false);
    }
  });

  it('refuses DNS names that resolve to a local address, and connects to the address it checked', async () => {
    await expect(resolveOutboundAddress(new URL('http://localhost:1/'), false)).rejects.toThrow(/local network/);
    await expect(resolveOutboundAddress(new URL('http://2130706433/'), false)).rejects.toThrow(/local network/);
    expect(await resolveOutboundAddress(new URL('http://localhost:1/'), true)).toMatchObject({ address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/) });
    const lookup = guardedLookup(() => false);
    const error = await new Promise<Error | null>((resolve) => lookup('localhost', {}, (failure) => resolve(failure)));
    expect(error?.message).toMatch(/Requests to the local network are not allowed \(localhost is/);
    const allowed = guardedLookup(() => true);
    const address = await new Promise<string>((resolve, reject) => allowed('localhost', {}, (failure, got) => (failure ? reject(failure) : resolve(got as string))));
    expect(isLocalAddress(address)).toBe(true);
  });

  describe('on a site with allowLocalRequests false', () => {
    let site: TestSite;
    let owner: TestUser;
    beforeAll(async () => {
      site = await startSite({ allowLocalRequests: false });
      owner = await createUser(site);
    });
    afterAll(() => site.stop());

    it('does not deliver webhooks to loopback (by address, by name, by number) and does not retry', async () => {
      const receiver = await startReceiver();
      try {
        const project = await createProject(site, {}, owner.token);
        const urls = [`${receiver.url}/hook`, `http://localhost:${receiver.port}/hook`, `http://2130706433:${receiver.port}/hook`, `http://[::ffff:127.0.0.1]:${receiver.port}/hook`];
        const hooks: number[] = [];
        for (const url of urls) {
          const created = await site.api(`/projects/${project.id}/hooks`, { method: 'POST', as: owner.token, body: { url } });
          expect(created.status).toBe(201);
          hooks.push(created.body.id);
        }
        expect(fireProjectHooks(site.site.ctx, { id: project.id }, 'push', { object_kind: 'push' })).toBe(urls.length);
        for (const hook of hooks) {
          const logs = await waitFor(() => (logsOf(site, hook).length ? logsOf(site, hook) : null), { message: `log of hook ${hook}` });
          expect(logs).toHaveLength(1);
          expect(logs[0]).toMatchObject({ response_status: null, error: expect.stringMatching(/Requests to the local network are not allowed/) });
        }
        // Nothing is queued for another attempt: a refusal is final.
        expect(site.site.db.prepare('SELECT count(*) FROM web_hook_queue').pluck().get()).toBe(0);
        expect(receiver.received).toEqual([]);
      } finally {
        await receiver.close();
      }
    });

    it('does not import from a loopback URL', async () => {
      const receiver = await startReceiver();
      try {
        const created = await createProject(site, { name: 'Sneaky', import_url: `http://localhost:${receiver.port}/x.git` }, owner.token);
        const failed = await waitFor(
          async () => {
            const response = await site.api(`/projects/${created.id}`, { as: owner.token });
            return ['finished', 'failed'].includes(response.body.import_status) ? response.body : null;
          },
          { timeoutMs: 20_000, message: 'import settled' },
        );
        expect(failed).toMatchObject({ import_status: 'failed', import_error: expect.stringMatching(/Requests to the local network are not allowed/) });
        expect(receiver.received).toEqual([]);
      } finally {
        await receiver.close();
      }
    });
  });

  describe('on a site that allows local requests', () => {
    let site: TestSite;
    let owner: TestUser;
    beforeAll(async () => {
      site = await startSite({ allowLocalRequests: true });
      owner = await createUser(site);
    });
    afterAll(() => site.stop());

    it('delivers, but never follows a redirect to another address', async () => {
      const target = await startReceiver();
      const redirector = await startReceiver(() => ({ status: 302, headers: { location: `${target.url}/stolen` } }));
      try {
        const project = await createProject(site, {}, owner.token);
        const created = await site.api(`/projects/${project.id}/hooks`, { method: 'POST', as: owner.token, body: { url: `${redirector.url}/hook` } });
        fireProjectHooks(site.site.ctx, { id: project.id }, 'push', { object_kind: 'push' });
        const logs = await waitFor(() => (logsOf(site, created.body.id).length ? logsOf(site, created.body.id) : null));
        expect(logs[0]).toMatchObject({ response_status: 302 });
        expect(redirector.received).toEqual(['POST /hook']);
        expect(target.received).toEqual([]);
      } finally {
        await Promise.all([target.close(), redirector.close()]);
      }
    });
  });
});

describe('security headers', () => {
  let site: TestSite;
  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(() => site.stop());

  it('are on API answers, errors and web answers alike', async () => {
    for (const [path, csp] of [
      ['/projects', /sandbox/],
      ['/projects/999999', /sandbox/],
      ['/no-such-route', /sandbox/],
      ['/users/sign_in', /default-src 'none'.*frame-ancestors 'self'/],
      ['/-/no-such-page', /default-src 'none'/],
    ] as const) {
      const response = await site.api(path);
      expect(response.headers['x-content-type-options'], path).toBe('nosniff');
      expect(response.headers['x-frame-options'], path).toBe('SAMEORIGIN');
      expect(response.headers['referrer-policy'], path).toBe('strict-origin-when-cross-origin');
      expect(response.headers['content-security-policy'], path).toMatch(csp);
    }
  });
});

describe('raw files are never run as pages (stored XSS)', () => {
  let site: TestSite;
  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(() => site.stop());

  it('serves an HTML or SVG file of a repository as text, unsniffable, in a sandbox', async () => {
    const project = await createProject(site, { initialize_with_readme: true, default_branch: 'master' });
    const page = '<html><script>alert(document.cookie)</script></html>';
    for (const name of ['x.html', 'y.svg']) {
      const created = await site.api(`/projects/${project.id}/repository/files/${name}`, { method: 'POST', body: { branch: 'master', content: page, commit_message: name } });
      expect(created.status, created.text).toBe(201);
      const raw = await site.api(`/projects/${project.id}/repository/files/${name}/raw?ref=master`);
      expect(raw.status).toBe(200);
      expect(raw.text).toBe(page);
      expect(raw.headers['content-type']).toMatch(/^text\/plain/);
      expect(raw.headers['x-content-type-options']).toBe('nosniff');
      expect(raw.headers['content-security-policy']).toMatch(/sandbox/);
    }
  });
});

describe('rate limits', () => {
  let site: TestSite;
  const period = 60;
  beforeAll(async () => {
    site = await startSite({ rateLimit: { authenticated: 5, unauthenticated: 3, periodSeconds: period, exemptLoopback: false } });
  });
  afterAll(() => site.stop());

  it('answers 429 with Retry-After and RateLimit-* past the budget of each token and each anonymous IP', async () => {
    // Tokens made in the database: no API call spends the budgets before the test does.
    const [one, other] = [tokenFor(site, 1, ['api']), tokenFor(site, 1, ['api'])];
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await site.api('/user', { as: one })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const limited = await site.api('/user', { as: one });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(period);
    expect(limited.headers['ratelimit-name']).toBe('throttle_authenticated_api');
    expect(limited.headers['ratelimit-limit']).toBe('5');
    expect(limited.headers['ratelimit-observed']).toBe('7');
    expect(limited.headers['ratelimit-remaining']).toBe('0');
    expect(Number(limited.headers['ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    expect(Date.parse(String(limited.headers['ratelimit-resettime']))).toBeGreaterThan(Date.now() - 1000);
    expect(limited.headers['x-content-type-options']).toBe('nosniff');

    // Another token has its own budget; anonymous requests share the IP's.
    expect((await site.api('/user', { as: other })).status).toBe(200);
    const anonymous = [];
    for (let i = 0; i < 4; i++) anonymous.push((await site.api('/projects', { as: null })).status);
    expect(anonymous).toEqual([200, 200, 200, 429]);
    expect((await site.api('/projects', { as: null })).headers['ratelimit-name']).toBe('throttle_unauthenticated_api');
  });

  it('is off for loopback in test sites and by setting', () => {
    expect(defaults.rateLimit.exemptLoopback).toBe(false);
    expect(defaults.allowLocalRequests).toBe(false);
  });
});

describe('application settings govern the throttles and the local-network rule at run time', () => {
  let site: TestSite;
  let owner: TestUser;
  beforeAll(async () => {
    site = await startSite({ allowLocalRequests: false, rateLimit: { authenticated: 1000, unauthenticated: 1000, periodSeconds: 60, exemptLoopback: false } });
    owner = await createUser(site);
  });
  afterAll(() => site.stop());

  it('throttle_* settings: the config is the default, a PUT changes the budget and turns a throttle off', async () => {
    const settings = await site.api('/application/settings');
    expect(settings.body).toMatchObject({
      throttle_authenticated_api_enabled: true,
      throttle_authenticated_api_requests_per_period: 1000,
      throttle_authenticated_api_period_in_seconds: 60,
      throttle_unauthenticated_api_enabled: true,
      throttle_unauthenticated_api_requests_per_period: 1000,
      allow_local_requests_from_web_hooks_and_services: false,
    });
    await site.api('/application/settings', { method: 'PUT', body: { throttle_unauthenticated_api_requests_per_period: 2, throttle_unauthenticated_api_period_in_seconds: 3600 } });
    const anonymous = [];
    for (let i = 0; i < 3; i++) anonymous.push((await site.api('/projects', { as: null })).status);
    expect(anonymous).toEqual([200, 200, 429]);
    const limited = await site.api('/projects', { as: null });
    expect(limited.headers['ratelimit-name']).toBe('throttle_unauthenticated_api');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(60);
    await site.api('/application/settings', { method: 'PUT', body: { throttle_unauthenticated_api_enabled: false } });
    expect((await site.api('/projects', { as: null })).status).toBe(200);
  });

  it('allow_local_requests_from_web_hooks_and_services: webhooks reach loopback only while it is on', async () => {
    const receiver = await startReceiver();
    try {
      const project = await createProject(site, {}, owner.token);
      const hook = (await site.api(`/projects/${project.id}/hooks`, { method: 'POST', as: owner.token, body: { url: `${receiver.url}/hook` } })).body.id;
      fireProjectHooks(site.site.ctx, { id: project.id }, 'push', { object_kind: 'push' });
      await waitFor(() => (logsOf(site, hook).length === 1 ? true : null), { message: 'the refused delivery' });
      expect(logsOf(site, hook)[0].error).toMatch(/Requests to the local network are not allowed/);

      await site.api('/application/settings', { method: 'PUT', body: { allow_local_requests_from_web_hooks_and_services: true } });
      fireProjectHooks(site.site.ctx, { id: project.id }, 'push', { object_kind: 'push' });
      await waitFor(() => (logsOf(site, hook).length === 2 ? true : null), { message: 'the delivery' });
      expect(logsOf(site, hook)[1]).toMatchObject({ response_status: 200, error: null });
      expect(receiver.received).toEqual(['POST /hook']);
      await site.api('/application/settings', { method: 'PUT', body: { allow_local_requests_from_web_hooks_and_services: false } });
    } finally {
      await receiver.close();
    }
  });
});
