import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geoAuthorization, geoPathOf } from '../../src/geo/signing.js';
import { metric, sendSlowly, slots, until } from '../helpers/held-requests.js';
import { LOCAL_TEST_NETWORK, ROOT_TOKEN, startSite, type TestSite } from '../helpers/site.js';

const GEO_SECRET = 'admission-geo-secret-0123456789';

describe('API admission control', () => {
  // One slot and one queue place; a queued request waits long enough that no busy machine makes it time out.
  let site: TestSite;
  // The same slot and queue place, and a short queue timeout.
  let impatient: TestSite;
  const one = { limit: 1, queueLimit: 1, queueTimeoutMs: 60_000 };
  const json = { 'private-token': ROOT_TOKEN, 'content-type': 'application/json' };
  /** POST /projects with half its body: it holds an API slot (the body parser waits for the rest). */
  const holdApi = (target: TestSite) => sendSlowly(target.url, '/api/v4/projects', json, '{"name":', 25);

  beforeAll(async () => {
    site = await startSite({ geoSecret: GEO_SECRET, admission: { ...LOCAL_TEST_NETWORK.admission, api: one } });
    impatient = await startSite({ admission: { ...LOCAL_TEST_NETWORK.admission, api: { ...one, queueTimeoutMs: 200 } } });
  });
  afterAll(async () => {
    await site?.stop();
    await impatient?.stop();
  });

  it('queues a request while the slot is taken, answers 429 with Retry-After past the queue, and serves the queued one once the slot frees', async () => {
    const api = site.site.ctx.limits.api;
    const fullBefore = await metric(site, 'admission_rejected_total{limiter="api",reason="queue_full"}');
    const holder = holdApi(site);
    await until(() => slots(api).inFlight === 1);
    const queued = site.api('/projects?per_page=1');
    await until(() => slots(api).queued === 1);

    const refused = await site.api('/projects?per_page=1');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.headers['content-type']).toBe('application/json');
    expect(refused.body).toEqual({ message: '429 Too Many Requests' });

    // The metrics show the slot taken, the queue full and the refusal (probes take no slot).
    expect(await metric(site, 'admission_in_flight{limiter="api"}')).toBe(1);
    expect(await metric(site, 'admission_queued{limiter="api"}')).toBe(1);
    expect(await metric(site, 'admission_limit{limiter="api"}')).toBe(1);
    expect(await metric(site, 'admission_rejected_total{limiter="api",reason="queue_full"}')).toBe(fullBefore + 1);

    holder.finish('"held-then-done"}');
    expect((await holder.answer).status).toBe(201);
    expect((await queued).status).toBe(200);
    await until(() => slots(api).inFlight === 0 && slots(api).queued === 0);
    expect(await metric(site, 'admission_queue_wait_seconds_count{limiter="api"}')).toBeGreaterThanOrEqual(1);
  });

  it('answers 503 with Retry-After to a request that waited the whole queue timeout', async () => {
    const api = impatient.site.ctx.limits.api;
    const timeoutsBefore = await metric(impatient, 'admission_rejected_total{limiter="api",reason="queue_timeout"}');
    const holder = holdApi(impatient);
    await until(() => slots(api).inFlight === 1);
    const waited = await impatient.api('/projects?per_page=1');
    expect(waited.status).toBe(503);
    expect(waited.headers['retry-after']).toBe('1');
    expect(waited.body).toEqual({ message: '503 Service Unavailable' });
    expect(slots(api).queued).toBe(0);
    holder.abort();
    await until(() => slots(api).inFlight === 0);
    expect(await metric(impatient, 'admission_rejected_total{limiter="api",reason="queue_timeout"}')).toBe(timeoutsBefore + 1);
  });

  it('frees the slot of a client that goes away mid-request, and the queue place of one that goes away while waiting', async () => {
    const api = site.site.ctx.limits.api;
    const holder = holdApi(site);
    await until(() => slots(api).inFlight === 1);
    const waiter = holdApi(site);
    await until(() => slots(api).queued === 1);
    waiter.abort();
    await until(() => slots(api).queued === 0);
    expect(slots(api).inFlight).toBe(1);
    holder.abort();
    await until(() => slots(api).inFlight === 0);
    // Nothing leaked: the one slot serves, and a second request queues rather than being refused.
    const next = holdApi(site);
    await until(() => slots(api).inFlight === 1);
    const queued = site.api('/projects?per_page=1');
    await until(() => slots(api).queued === 1);
    next.abort();
    expect((await queued).status).toBe(200);
    await until(() => slots(api).inFlight === 0);
  });

  it('never refuses the probes, nor counts the Geo event long-poll, while every slot and queue place is taken', async () => {
    const api = site.site.ctx.limits.api;
    const holder = holdApi(site);
    await until(() => slots(api).inFlight === 1);
    const queued = holdApi(site);
    await until(() => slots(api).queued === 1);
    for (const probe of ['/-/liveness', '/-/readiness', '/-/metrics']) expect((await site.api(probe, { as: null })).status, probe).toBe(200);
    // A secondary's long-poll: waits for events past the newest, then answers, never queued behind the API.
    const head = site.site.db.prepare('SELECT coalesce(max(id), 0) FROM geo_event_log').pluck().get() as number;
    const events = await site.api(`/geo/events?after=${head}&wait_ms=100`, {
      as: null,
      headers: { authorization: geoAuthorization(GEO_SECRET, 'admission-probe', { method: 'GET', path: geoPathOf('/api/v4/geo/events') }) },
    });
    expect(events.status).toBe(200);
    expect(slots(api)).toMatchObject({ inFlight: 1, queued: 1 });
    holder.abort();
    queued.abort();
    await until(() => slots(api).inFlight === 0 && slots(api).queued === 0);
  });
});

