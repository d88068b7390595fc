import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geoAuthorization, geoPathOf, signGeoToken } from '../../src/geo/signing.js';
import { dumpTables, GEO_SECRET, lastEventIdOf, SiteProcess } from '../helpers/multisite.js';

const NODE = 'secondary-probe';
/** A token for one call, `url` as primary.api takes it (`/geo/...`). */
const scopeOf = (method: string, url: string) => ({ method, path: geoPathOf(`/api/v4${url}`) });
const signed = (method: string, url: string, node = NODE, secret = GEO_SECRET, now = Date.now()) => ({
  authorization: `GL-Geo ${signGeoToken(secret, node, scopeOf(method, url), now)}`,
});

/** Everything a bad call could change: every replicated table's rows, the log position and its row events. */
function primaryState(primary: SiteProcess) {
  const db = primary.openReadOnly();
  try {
    return db.transaction(() => ({
      tables: dumpTables(db),
      position: lastEventIdOf(db),
      rowEvents: db.prepare("SELECT count(*) AS count, max(id) AS last FROM geo_event_log WHERE kind != 'heartbeat'").get(),
    }))();
  } finally {
    db.close();
  }
}

describe('site-to-site API: bad requests are refused and change nothing', () => {
  let primary: SiteProcess;

  beforeAll(async () => {
    // Heartbeats only after a minute without events, so the log stays still while the test runs.
    primary = await SiteProcess.create({ name: 'primary', role: 'primary', env: { GEOFORGE_GEO_HEARTBEAT_SECONDS: '59', GEOFORGE_LOG_LEVEL: 'warn' } });
    await primary.start();
  });
  afterAll(async () => {
    await primary?.destroy();
  });

  it('serves well-formed signed calls (the control case)', async () => {
    const registered = await primary.api('/geo/nodes', { as: null, method: 'POST', headers: signed('POST', '/geo/nodes'), body: { name: NODE, url: 'http://127.0.0.1:1' } });
    expect(registered.status, registered.text).toBe(201);
    const reported = await primary.api('/geo/status', { as: null, method: 'POST', headers: signed('POST', '/geo/status'), body: { healthy: true, cursor_last_event_id: 0 } });
    expect(reported.status, reported.text).toBe(201);
    const once = { authorization: geoAuthorization(GEO_SECRET, NODE, scopeOf('GET', '/geo/events')) };
    const events = await primary.api('/geo/events?after=0&wait_ms=0', { as: null, headers: once });
    expect(events.status).toBe(200);
    expect(events.body.events.length).toBeGreaterThan(0);
    // The same token again is a replay, and a token for one call opens no other.
    expect((await primary.api('/geo/events?after=0&wait_ms=0', { as: null, headers: once })).status).toBe(401);
    // A restart forgets nothing: the site's accepted nonces are in its database until their tokens expire.
    await primary.restart();
    expect((await primary.api('/geo/events?after=0&wait_ms=0', { as: null, headers: once })).status).toBe(401);
    expect((await primary.api('/geo/snapshot', { as: null, headers: signed('GET', '/geo/events') })).status).toBe(401);
    expect((await primary.api('/geo/events?after=0&wait_ms=0', { as: null, headers: signed('POST', '/geo/events') })).status).toBe(401);
  });

  it('a primary killed while frozen for a promotion comes back frozen, until the freeze is lifted', async () => {
    const freeze = (leaseMs: number) => primary.api('/geo/freeze', { as: null, method: 'POST', headers: signed('POST', '/geo/freeze'), body: { lease_ms: leaseMs } });
    expect((await freeze(30_000)).status).toBe(201);
    await primary.restart({ signal: 'SIGKILL' });
    const paused = await primary.api('/groups', { method: 'POST', body: { name: 'frozen', path: 'frozen' } });
    expect(paused.status, paused.text).toBe(503);
    expect(paused.body.message).toBe(`503 Service Unavailable - writes are paused: ${NODE} is being promoted to primary`);
    // The promoting site gives up: the freeze is lifted, and stays lifted across a restart.
    expect((await freeze(0)).status).toBe(201);
    await primary.restart({ signal: 'SIGKILL' });
    expect((await primary.api('/groups', { method: 'POST', body: { name: 'thawed', path: 'thawed' } })).status).toBe(201);
  });

  it('refuses unsigned, wrongly signed, expired and malformed calls with 4xx, changing nothing', async () => {
    const before = primaryState(primary);
    const good = signGeoToken(GEO_SECRET, NODE, scopeOf('GET', '/geo/events'));
    const [payload, signature] = good.split('.');
    const forged = `${Buffer.from(JSON.stringify({ node: NODE, iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 86_400 })).toString('base64url')}.${signature}`;
    const badAuth: [string, Record<string, string>][] = [
      ['no token', {}],
      ['wrong secret', signed('GET', '/geo/events', NODE, 'another-secret-of-enough-length')],
      ['expired token', signed('GET', '/geo/events', NODE, GEO_SECRET, Date.now() - 120_000)],
      ['token from the future', signed('GET', '/geo/events', NODE, GEO_SECRET, Date.now() + 600_000)],
      ['a token for another call', signed('GET', '/geo/epoch')],
      ['forged claims', { authorization: `GL-Geo ${forged}` }],
      ['truncated signature', { authorization: `GL-Geo ${payload}.${signature.slice(0, 10)}` }],
      ['another scheme', { authorization: `Bearer ${good}` }],
      ['garbage', { authorization: 'GL-Geo not-a-token' }],
      ['a user token instead', { 'private-token': 'glpat-root-token-for-tests-0001' }],
    ];
    const calls: [string, string, unknown?][] = [
      ['GET', '/geo/events?after=0'],
      ['GET', '/geo/snapshot'],
      ['POST', '/geo/nodes', { name: NODE, url: 'http://127.0.0.1:2' }],
      ['POST', '/geo/status', { healthy: false, cursor_last_event_id: 0 }],
    ];
    for (const [why, headers] of badAuth) {
      for (const [method, url, body] of calls) {
        const response = await primary.api(url, { as: null, method, headers, body });
        expect(response.status, `${why}: ${method} ${url}`).toBe(401);
        expect(response.body).toEqual({ message: '401 Unauthorized' });
      }
    }

    const malformed: [string, string, unknown?, Record<string, string>?][] = [
      ['GET', '/geo/events?after=-1'],
      ['GET', '/geo/events?after=abc'],
      ['GET', '/geo/events?after=1.5'],
      ['GET', '/geo/events'],
      ['GET', '/geo/events?after=0&wait_ms=-1'],
      ['GET', '/geo/events?after=0&wait_ms=abc'],
      ['GET', '/geo/events?after=0&wait_ms=3600000'],
      ['POST', '/geo/nodes', { name: NODE }],
      ['POST', '/geo/nodes', { name: NODE, url: 'not a url' }],
      ['POST', '/geo/nodes', { name: 'someone-else', url: 'http://127.0.0.1:3' }],
      ['POST', '/geo/status', []],
      ['POST', '/geo/status', {}],
      ['POST', '/geo/status', { healthy: 'yes' }],
      ['POST', '/geo/status', { healthy: true, cursor_last_event_id: 'abc' }],
      ['POST', '/geo/status', { healthy: true, cursor_last_event_id: -5 }],
      ['POST', '/geo/status', { healthy: true, db_replication_lag_seconds: 'soon' }],
      ['POST', '/geo/status', '{"healthy": tru', { 'content-type': 'application/json' }],
      ['POST', '/geo/status', 'healthy=true', { 'content-type': 'text/plain' }],
    ];
    for (const [method, url, body, extra] of malformed) {
      const response = await primary.api(url, { as: null, method, headers: { ...signed(method, url), ...extra }, body });
      expect(response.status, `${method} ${url} ${JSON.stringify(body)}: ${response.text}`).toBeGreaterThanOrEqual(400);
      expect(response.status, `${method} ${url} ${JSON.stringify(body)}: ${response.text}`).toBeLessThan(500);
    }
    // A node the primary does not know cannot report.
    const stranger = await primary.api('/geo/status', { as: null, method: 'POST', headers: signed('POST', '/geo/status', 'never-registered'), body: { healthy: true } });
    expect(stranger.status).toBe(404);

    expect(primaryState(primary)).toEqual(before);
    // Refused snapshot calls leave no snapshot file behind.
    const tmp = await readdir(path.join(primary.dataDir, 'tmp')).catch(() => [] as string[]);
    expect(tmp.filter((name) => name.startsWith('snapshot-'))).toEqual([]);
  });
});
