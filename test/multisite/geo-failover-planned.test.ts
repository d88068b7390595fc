import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAST_SYNC_ENV } from '../helpers/geo-blobs.js';
import { expectSameRepositories, expectSameTables, jsonOut, projectWithCommit, siteState } from '../helpers/failover.js';
import { useCluster, waitFor, type SiteProcess } from '../helpers/multisite.js';

const newUser = () => {
  const suffix = randomUUID().replace(/-/g, '').slice(0, 10);
  return { username: `fo${suffix}`, email: `fo${suffix}@example.com`, name: `Failover ${suffix}`, reset_password: true };
};

describe('planned failover: promote secondary A, re-point B, fence and demote the old primary', () => {
  let primary: SiteProcess;
  let a: SiteProcess;
  let b: SiteProcess;
  const projectIds: number[] = [];

  const env = { ...FAST_SYNC_ENV, GEOFORGE_GEO_LOG_KEEP_MIN: '100000000' };
  useCluster(2, { primaryEnv: env, secondaryEnv: env, timeoutMs: 90_000 }, (sites) => {
    ({ primary } = sites);
    [a, b] = sites.secondaries;
  });

  it('promotes A once it holds everything, B follows A, the old primary answers 503 naming A, and demoted it follows A', async () => {
    for (let i = 0; i < 20; i++) expect((await primary.api('/users', { method: 'POST', body: newUser() })).status).toBe(201);
    for (const name of ['alpha', 'beta', 'gamma']) projectIds.push((await projectWithCommit(primary, `planned-${name}`)).id);
    const before = primary.lastEventId();

    // Planned: the command returns once A holds the primary's last event and every repository.
    const started = Date.now();
    const promoted = jsonOut(await a.cli(['geo', 'promote', '--json', '--timeout', '60']));
    const commandMs = Date.now() - started;
    expect(promoted).toMatchObject({ epoch: 1, forced: false, node: 'secondary-1', previous_primary_url: primary.url, missing_events: 0, unsynced_blobs_total: 0, promoted_by: 'cli' });
    expect(promoted.last_applied_event_id).toBeGreaterThanOrEqual(before);

    // A answers writes without a restart.
    let firstWrite = 0;
    await waitFor(async () => {
      const created = await a.api('/users', { method: 'POST', body: newUser() });
      if (created.status === 201) firstWrite = Date.now();
      return created.status === 201;
    }, { timeoutMs: 10_000, intervalMs: 5, message: 'A takes writes' });
    console.log(`planned promotion: command ${commandMs} ms, command to A's first accepted write ${firstWrite - started} ms`);
    expect((await a.api('/-/readiness', { as: null })).body).toMatchObject({ role: 'primary' });
    expect(JSON.parse(readFileSync(path.join(a.dataDir, 'geo-role.json'), 'utf8'))).toMatchObject({ role: 'primary', epoch: 1, ownEpoch: 1 });

    // The promotion is recorded in the database, and the status shows the epoch and the history.
    const status = (await a.api('/geo_nodes')).body.find((node: any) => node.name === 'secondary-1');
    expect(status.primary).toBe(true);
    const own = (await a.api(`/geo_nodes/${status.id}/status`)).body;
    expect(own).toMatchObject({ epoch: 1, fenced: false, role_history: [{ epoch: 1, node: 'secondary-1', previous_primary_url: primary.url, promoted_by: 'cli', forced: false }] });

    const cliStatus = await a.cli(['geo', 'status']);
    expect(cliStatus.stdout).toContain('This site: primary (persisted), fencing epoch 1');
    expect(cliStatus.stdout).toMatch(/epoch 1: secondary-1 \(.*\) at .* by cli, from event \d+ of http/);

    // The old primary was told: it answers writes 503 naming A.
    const refused = await primary.api('/users', { method: 'POST', body: newUser() });
    expect(refused.status).toBe(503);
    expect(refused.body.message).toContain(a.url);

    // B follows A, from its cursor, and converges table by table and repository by repository.
    const followed = jsonOut(await b.cli(['geo', 'follow', a.url, '--json']));
    expect(followed).toMatchObject({ primary_url: a.url, epoch: 1 });
    console.log(`B follows A: ${followed.mode} (${followed.reason})`);
    await projectWithCommit(a, 'after-promotion').then((project) => projectIds.push(project.id));
    await expectSameTables(a, b);
    await expectSameRepositories(a, b, projectIds);

    // The old primary, restarted with the same configuration, stays read-only.
    const lastBefore = primary.lastEventId();
    await primary.restart();
    expect(primary.lastEventId(), 'a fenced primary appends no event at start').toBe(lastBefore);
    const again = await primary.api('/users', { method: 'POST', body: newUser() });
    expect(again.status).toBe(503);
    expect(again.body.message).toContain(a.url);
    expect((await primary.cli(['geo', 'status'])).stdout).toContain(`FENCED: ${a.url} is the primary`);
    const metrics = (await primary.api('/-/metrics', { as: null })).text;
    expect(metrics).toMatch(/^geo_primary_fenced 1$/m);
    expect(metrics).toMatch(/^geo_fencing_epoch 1$/m);

    // Demoted, it exports nothing (A had all it wrote), re-bootstraps from A and follows it.
    const demoted = jsonOut(await primary.cli(['geo', 'demote', '--primary-url', a.url, '--json']));
    if (demoted.exported_file) console.log(readFileSync(demoted.exported_file, "utf8"));
    expect(demoted).toMatchObject({ primary_url: a.url, epoch: 1, exported_events: 0, exported_file: null });
    await expectSameTables(a, primary, 60_000);
    await expectSameRepositories(a, primary, projectIds, 60_000);
    expect(siteState(primary).following).toBe(true);
  }, 180_000);
});
