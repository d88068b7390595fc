import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectSameTables, jsonOut, siteState } from '../helpers/failover.js';
import { ownStatus } from '../helpers/geo-blobs.js';
import { useCluster, waitFor, type SiteProcess } from '../helpers/multisite.js';

const newUser = (prefix: string) => {
  const suffix = randomUUID().replace(/-/g, '').slice(0, 10);
  return { username: `${prefix}${suffix}`, email: `${prefix}${suffix}@example.com`, name: `${prefix} ${suffix}`, reset_password: true };
};

describe('two sites that both believe they are primary for a moment', () => {
  let old: SiteProcess;
  let a: SiteProcess;
  let b: SiteProcess;

  useCluster(2, { timeoutMs: 90_000 }, (sites) => {
    old = sites.primary;
    [a, b] = sites.secondaries;
  });

  it('once the epoch is known only the new primary accepts writes, and no secondary applies the old epoch', async () => {
    for (let i = 0; i < 5; i++) expect((await old.api('/users', { method: 'POST', body: newUser('before') })).status).toBe(201);
    const last = old.lastEventId();
    await waitFor(() => a.cursor()!.last_event_id >= last && b.cursor()!.last_event_id >= last, { message: 'A and B caught up' });
    // B misses the last writes: it will be behind the point A's log begins at.
    b.signal('SIGSTOP');
    for (let i = 0; i < 3; i++) expect((await old.api('/users', { method: 'POST', body: newUser('missed') })).status).toBe(201);
    const final = old.lastEventId();
    await waitFor(() => a.cursor()!.last_event_id >= final, { message: 'A has the last writes' });

    // The primary's site is lost; A is promoted with force and tells B its epoch.
    await old.kill('SIGKILL');
    b.signal('SIGCONT');
    const promoted = jsonOut(await a.cli(['geo', 'promote', '--force', '--json']));
    expect(promoted).toMatchObject({ epoch: 1, forced: true, told: [b.url], not_told: [old.url] });
    const bCursor = b.cursor()!.last_event_id;

    // The old primary comes back while nobody can tell it: for a moment it is a primary too.
    await a.kill('SIGTERM');
    await b.kill('SIGTERM');
    await old.start();
    const moment = await old.api('/users', { method: 'POST', body: newUser('moment') });
    expect(moment.status).toBe(201);

    // A comes back as primary (its data directory says so; its configuration still says secondary):
    // its epoch exchange reaches the old primary, which from then on refuses writes naming A.
    await a.start();
    expect((await a.api('/-/readiness', { as: null })).body).toMatchObject({ role: 'primary' });
    const refused = await old.api('/users', { method: 'POST', body: newUser('late') });
    expect(refused.status).toBe(503);
    expect(refused.body.message).toContain(a.url);
    expect((await a.api('/users', { method: 'POST', body: newUser('after') })).status).toBe(201);
    for (let i = 0; i < 5; i++) {
      const [onOld, onA] = await Promise.all([old.api('/users', { method: 'POST', body: newUser('race') }), a.api('/users', { method: 'POST', body: newUser('race') })]);
      expect([onOld.status, onA.status]).toEqual([503, 201]);
    }

    // B, still pointed at the old primary but knowing epoch 1, applies nothing from it.
    await b.start();
    await waitFor(
      async () => {
        const status = await ownStatus(b);
        expect(status.healthy).toBe(false);
        expect(status.health).toContain(`no longer the primary: ${a.url}`);
        expect(status.epoch).toBe(1);
        return true;
      },
      { timeoutMs: 15_000, message: 'B reports that it refuses the old primary' },
    );
    expect(b.cursor()!.last_event_id).toBe(bCursor);
    const bUsers = siteState(b).tables.users.map((row) => row[1]);
    expect(bUsers).not.toContain(moment.body.username);

    // Re-pointed, B converges with A; the moment's write is in neither.
    const followed = jsonOut(await b.cli(['geo', 'follow', a.url, '--json']));
    console.log(`B follows A: ${followed.mode} (${followed.reason})`);
    expect(followed).toMatchObject({ mode: 'bootstrap', reason: expect.stringMatching(/is behind event \d+, where /) });
    expect(promoted.last_applied_event_id).toBeGreaterThanOrEqual(final);
    await expectSameTables(a, b);
    expect(siteState(a).tables.users.map((row) => row[1])).not.toContain(moment.body.username);

    // Demoted while stopped (on its data directory), the old primary exports the write only it
    // accepted, with its event ids and times, and starts as a secondary of A with its configuration unchanged.
    await old.kill('SIGTERM');
    const demoted = jsonOut(await old.cli(['geo', 'demote', '--offline', '--primary-url', a.url, '--json']));
    await old.start();
    expect((await old.api('/-/readiness', { as: null })).body).toMatchObject({ role: 'secondary' });
    expect(demoted.exported_events).toBeGreaterThan(0);
    const exported = JSON.parse(readFileSync(demoted.exported_file, 'utf8'));
    const rows = exported.events.filter((event: any) => event.table === 'users').map((event: any) => event.payload.username);
    expect(rows).toContain(moment.body.username);
    expect(exported.events[0]).toMatchObject({ id: expect.any(Number), created_at: expect.any(String) });
    await expectSameTables(a, old);
  }, 180_000);
});
