import { describe, expect, it } from 'vitest';
import { jsonOut } from '../helpers/failover.js';
import { useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';
import { call, servedBy, untilEachServed } from '../helpers/workers.js';

/**
 * Geo with two request workers beside the background worker on both sites (src/cluster/). Every
 * request goes on its own connection (helpers/workers.ts), so the supervisor spreads them over the
 * workers, and which worker answered comes from the request's log line.
 */
const TWO_WORKERS = { GEOFORGE_WORKERS: '2' };
const WORKERS = ['request-1', 'request-2', 'background'];
const REQUEST_WORKERS = ['request-1', 'request-2'];

/** The workers of a site that logged switching to `role`. */
const switchedTo = (site: SiteProcess, role: 'primary' | 'secondary'): Set<string> =>
  new Set([...site.output.matchAll(new RegExp(`"worker":"([\\w-]+)","role":"${role}"[^\\n]*"msg":"geo: the site switched role"`, 'g'))].map((match) => match[1]!));

describe('Geo with two request workers on each site', () => {
  const sites = useTwoSites({ primaryEnv: TWO_WORKERS, secondaryEnv: TWO_WORKERS, timeoutMs: 90_000 });

  it('a write forwarded through the secondary is read back at once on a new connection, whichever worker answers', async () => {
    const { secondary } = sites;
    const served = new Set<string>();
    for (let i = 0; i < 4; i++) {
      const write = await call(secondary, 'POST', '/api/v4/groups', { body: { name: `read-back-${i}`, path: `read-back-${i}` } });
      expect(write.status, write.text).toBe(201);
      // Answered by the primary, and only once this site applied its event.
      expect(write.headers['x-geoforge-node']).toBe('primary');
      expect(write.headers['x-geoforge-replication']).toBe('applied');
      const read = await call(secondary, 'GET', `/api/v4/groups/${JSON.parse(write.text).id}`);
      expect(read.status, read.text).toBe(200);
      expect(read.headers['x-geoforge-node']).toBe('secondary-1');
      served.add(await servedBy(secondary, write.requestId)).add(await servedBy(secondary, read.requestId));
    }
    // The secondary's agent, cursor and syncs live in its background worker, which serves it alone:
    // its request workers idle until a promotion (server.ts, startRole). Were they to serve, the
    // cursor waiter (geo/cursor-waiter.ts, woken in-process by the agent) would have to be woken
    // across processes, and this test would check it once this line goes.
    expect([...served]).toEqual(['background']);
  });

  it('a promotion switches every worker of the promoted site, the old primary refuses writes in every worker, and a demotion switches all of its workers', async () => {
    const { primary, secondary } = sites;
    const promoted = jsonOut(await secondary.cli(['geo', 'promote', '--json', '--timeout', '30']));
    expect(promoted).toMatchObject({ epoch: 1, forced: false, node: 'secondary-1' });
    await waitFor(() => WORKERS.every((worker) => switchedTo(secondary, 'primary').has(worker)), { timeoutMs: 15_000, message: 'every worker of the promoted site switched' });
    // Its request workers listen again: writes answered through each are its own, none forwarded.
    const writes = await untilEachServed(secondary, REQUEST_WORKERS, (i) => call(secondary, 'POST', '/api/v4/groups', { body: { name: `promoted-${i}`, path: `promoted-${i}` } }));
    for (const write of writes) {
      expect(write.status, `${write.worker}: ${write.text}`).toBe(201);
      expect(write.headers['x-geoforge-node']).toBe('secondary-1');
      expect(write.headers['x-geoforge-replication']).toBeUndefined();
    }

    // The old primary learns the new epoch in one of its workers; every one of them refuses writes.
    await waitFor(async () => (await call(primary, 'POST', '/api/v4/groups', { body: { name: 'fenced', path: 'fenced' } })).status === 503, { timeoutMs: 15_000, message: 'the old primary fenced' });
    const refused = await untilEachServed(primary, REQUEST_WORKERS, (i) => call(primary, 'POST', '/api/v4/groups', { body: { name: `fenced-${i}`, path: `fenced-${i}` } }));
    for (const answer of refused) {
      expect(answer.status, `${answer.worker}: ${answer.text}`).toBe(503);
      expect(JSON.parse(answer.text).message).toContain(`${secondary.url} is the primary`);
    }

    // Demoted through one worker: every worker switches, and no write is answered by the old role any more.
    const demoted = jsonOut(await primary.cli(['geo', 'demote', '--primary-url', secondary.url, '--json']));
    expect(demoted).toMatchObject({ primary_url: secondary.url, epoch: 1 });
    await waitFor(() => WORKERS.every((worker) => switchedTo(primary, 'secondary').has(worker)), { timeoutMs: 15_000, message: 'every worker of the demoted site switched' });
    await waitFor(async () => (await call(primary, 'GET', '/-/readiness', { token: null })).status === 200, { timeoutMs: 30_000, message: 'the demoted site bootstrapped' });
    for (let i = 0; i < 4; i++) {
      const write = await call(primary, 'POST', '/api/v4/groups', { body: { name: `demoted-${i}`, path: `demoted-${i}` } });
      expect(write.status, write.text).toBe(201);
      expect(write.headers['x-geoforge-node']).toBe('secondary-1');
    }
  }, 90_000);
});
