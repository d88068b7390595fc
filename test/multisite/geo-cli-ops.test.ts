import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { localCopyPath } from '../../src/geo/sync/local-copy.js';
import { FAST_SYNC_ENV, postFile, registryOf } from '../helpers/geo-blobs.js';
import { useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';

type Screen = { site: Record<string, any>; nodes: any[]; failover: Record<string, any> };

/**
 * The operator CLI on a real primary and secondary (issue 19, item 4): `geo status` as a check
 * (exit 0 healthy, 1 unhealthy) whose --json carries every field of its screen, and `geo
 * failures | resync | verify` against a secondary with an attachment the primary cannot serve.
 */
describe('geoforge geo status | failures | resync | verify on a real secondary', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;
  let project: any;
  let hidden: { id: number; file: string };
  let kept: { id: number };

  const status = async (site: SiteProcess) => {
    const text = await site.cli(['geo', 'status']);
    const json = await site.cli(['geo', 'status', '--json']);
    return { text, json, screen: JSON.parse(json.stdout) as Screen };
  };

  useTwoSites({ secondaryEnv: FAST_SYNC_ENV, timeoutMs: 90_000 }, (sites) => ({ primary, secondary } = sites));
  beforeAll(async () => {
    project = (await primary.api('/projects', { method: 'POST', body: { name: 'cli-ops', initialize_with_readme: true } })).body;
    const upload = async (name: string, content: string) => {
      await postFile(primary, `/projects/${project.id}/uploads`, name, Buffer.from(content));
      const db = primary.openReadOnly();
      const row = db.prepare('SELECT id, secret FROM uploads WHERE project_id = ? AND filename = ?').get(project.id, name) as { id: number; secret: string };
      db.close();
      return { id: row.id, file: path.join(primary.dataDir, 'uploads', String(project.id), row.secret, name) };
    };
    kept = await upload('kept.txt', 'a file that syncs\n');
    await waitFor(() => registryOf(secondary).some((row) => row.item_type === 'attachment' && row.item_id === kept.id && row.state === 'synced'), { timeoutMs: 30_000, message: 'kept.txt synced' });
    await waitFor(() => registryOf(secondary).some((row) => row.item_type === 'repository' && row.item_id === project.id && row.state === 'synced'), { timeoutMs: 30_000, message: 'repository synced' });
  }, 90_000);

  it('exits 0 on a healthy secondary, and its --json carries every field of the screen', async () => {
    // Healthy, caught up and reported at least once (the report replicates back from the primary).
    let result!: Awaited<ReturnType<typeof status>>;
    await waitFor(async () => {
      result = await status(secondary);
      // The screen is taken just before the JSON: both must show the report.
      const reported = result.screen.site.last_status_report.at !== null && !/^Last status report: +never$/m.test(result.text.stdout);
      return result.json.code === 0 && reported && result.screen.site.lag.events === 0;
    }, { timeoutMs: 30_000, message: 'a healthy, reported secondary' });
    const { text, screen } = result;
    expect(text.code).toBe(0);
    expect(screen.site).toMatchObject({ name: secondary.name, role: 'secondary', source: 'live', site_error: null, healthy: true, health: 'Healthy', epoch: 0, fenced: false, oldest_failure: null });
    expect(screen.site.types.map((t: any) => t.type)).toEqual(['repositories', 'wikis', 'lfs_objects', 'uploads', 'job_artifacts', 'snippet_repositories', 'group_wiki_repositories']);
    expect(screen.site.types.find((t: any) => t.type === 'uploads')).toMatchObject({ synced: 1, failed: 0, total: 1, synced_percentage: '100.00%' });
    expect(screen.nodes.map((line) => line.node.name)).toEqual(['primary', secondary.name]);

    // Every field of the JSON appears on the screen (the screen was taken a moment before: values that tick are compared loosely).
    const out = text.stdout;
    expect(out).toContain(`geoforge geo status: ${screen.site.name} (${screen.site.url})`);
    expect(out).toMatch(/^Health: +Healthy$/m);
    expect(out).toMatch(new RegExp(`^Role: +secondary, fencing epoch ${screen.site.epoch}$`, 'm'));
    expect(out).toMatch(/^Source: +live \(the running site\)$/m);
    expect(out).toMatch(/^Lag: +\d+ event\(s\) behind \(cursor \d+ of \d+\), \d+ s$/m);
    expect(out).toMatch(/^Last status report: +\d+ s ago \(\d{4}-\d\d-\d\dT[\d:]+Z\)$/m);
    expect(out).toMatch(/^Sync replication: +off \(geoSyncReplicas 0\)$/m);
    expect(out).toMatch(/^Oldest failure: +none$/m);
    for (const t of screen.site.types) {
      expect(out).toMatch(new RegExp(`^  ${t.type} +${t.synced} +${t.failed} +${t.total} +${t.synced_percentage.replace('.', '\\.')}$`, 'm'));
    }
    // The node table: this site's line from its live status (the primary's figures live on the primary).
    const own = screen.nodes.find((line) => line.node.name === secondary.name);
    expect(own.status).toMatchObject({ healthy: true, health: 'Healthy' });
    expect(out).toMatch(new RegExp(`^${own.node.id} +${own.node.name} +secondary +yes +Healthy +\\d+ +\\d+ +\\d+ `, 'm'));
    expect(out).toContain(`This site: secondary (${screen.failover.role_source}), fencing epoch ${screen.failover.epoch}`);

    // The primary's own check passes too.
    const onPrimary = await status(primary);
    expect(onPrimary.json.code).toBe(0);
    expect(onPrimary.screen.site).toMatchObject({ role: 'primary', healthy: true, source: 'live', last_status_report: null });
  }, 60_000);

  it('lists the failed item, with its reason on the status screen; resync follows it; verify checks a copy against the primary', async () => {
    // While the secondary is down, the primary takes an upload and loses its bytes from its disk: the secondary's sync fails.
    await secondary.kill('SIGTERM');
    await postFile(primary, `/projects/${project.id}/uploads`, 'hidden.txt', Buffer.from('bytes the primary will lose\n'));
    const db = primary.openReadOnly();
    const row = db.prepare("SELECT id, secret FROM uploads WHERE project_id = ? AND filename = 'hidden.txt'").get(project.id) as { id: number; secret: string };
    db.close();
    hidden = { id: row.id, file: path.join(primary.dataDir, 'uploads', String(project.id), row.secret, 'hidden.txt') };
    await rename(hidden.file, `${hidden.file}.away`);
    await secondary.start();
    const state = () => registryOf(secondary).find((r) => r.item_type === 'attachment' && r.item_id === hidden.id)?.state;
    await waitFor(() => state() === 'failed', { timeoutMs: 30_000, message: 'hidden.txt failed' });

    // geo failures: the item and its reason, as JSON and as a table, filtered by type.
    // (The item retries every two seconds: each view is read while it is failed, not in a retry.)
    let listed: any[] = [];
    await waitFor(async () => {
      const failures = await secondary.cli(['geo', 'failures', '--type', 'uploads', '--json']);
      expect(failures.code).toBe(0);
      listed = JSON.parse(failures.stdout);
      return listed.length === 1;
    }, { timeoutMs: 20_000, message: 'the failure listed' });
    expect(listed[0]).toMatchObject({ type: 'attachment', item_id: hidden.id, project_id: project.id, failure_type: 'sync' });
    expect(listed[0].last_sync_failure).toBeTruthy();
    expect(JSON.parse((await secondary.cli(['geo', 'failures', '--type', 'repository', '--json'])).stdout)).toEqual([]);
    let table!: Awaited<ReturnType<SiteProcess['cli']>>;
    await waitFor(async () => (table = await secondary.cli(['geo', 'failures'])).stdout.includes('1 failed item(s)'), { timeoutMs: 20_000, message: 'the failure in the table' });
    expect(table.stdout).toMatch(new RegExp(`^attachment +${hidden.id} +${project.id} +sync +\\d+ `, 'm'));
    expect(table.stdout).toContain('1 failed item(s)');
    const onPrimary = await primary.cli(['geo', 'failures']);
    expect(onPrimary.code).toBe(2);
    const resyncOnPrimary = await primary.cli(['geo', 'resync', '--all-failed']);
    expect(resyncOnPrimary.code).toBe(1);
    expect(resyncOnPrimary.stderr).toContain('the site answered 403');

    // The status screen names the oldest failure and its reason; failed items alone leave the site healthy.
    // (Both views are taken while it is failed.)
    let seen!: Awaited<ReturnType<typeof status>>;
    await waitFor(async () => {
      seen = await status(secondary);
      return seen.screen.site.oldest_failure !== null && seen.text.stdout.includes(`Oldest failure:     attachment ${hidden.id}`);
    }, { timeoutMs: 20_000, message: 'the failure on both views' });
    const { text, screen } = seen;
    expect(text.code).toBe(0);
    expect(screen.site.oldest_failure).toMatchObject({ type: 'attachment', item_id: hidden.id, failure_type: 'sync' });
    expect(screen.site.oldest_failure.reason).toBeTruthy();
    expect(text.stdout).toContain(`Oldest failure:     attachment ${hidden.id} (sync, `);
    expect(text.stdout).toContain(screen.site.oldest_failure.reason);
    expect(screen.site.types.find((t: any) => t.type === 'uploads')).toMatchObject({ failed: 1, total: 2 });

    // resync --all-failed while the primary still lacks the file: followed to its end, failed again, exit 1; progress lines on stderr.
    // (Asked again when the item was in one of its own retries, so not failed, at that instant.)
    let again!: Awaited<ReturnType<SiteProcess['cli']>>;
    await waitFor(async () => JSON.parse((again = await secondary.cli(['geo', 'resync', '--all-failed', '--json', '--timeout', '30'])).stdout).marked === 1, {
      timeoutMs: 30_000,
      message: 'resync --all-failed marked the failed item',
    });
    expect(again.code).toBe(1);
    expect(JSON.parse(again.stdout)).toMatchObject({ marked: 1, failed: 1, pending: 0, started: 0, timed_out: false });
    expect(again.stderr).toMatch(/resync: 1\/1 synced 0, failed 1/);

    // The file back on the primary: resync of that one item ends synced, exit 0.
    await rename(`${hidden.file}.away`, hidden.file);
    const fixed = await secondary.cli(['geo', 'resync', 'attachment', String(hidden.id), '--json', '--timeout', '30']);
    expect(fixed.code).toBe(0);
    expect(JSON.parse(fixed.stdout)).toMatchObject({ marked: 1, synced: 1, failed: 0, timed_out: false });
    expect(JSON.parse((await secondary.cli(['geo', 'failures', '--json'])).stdout)).toEqual([]);

    // verify: the copy equals the primary's checksum.
    const verified = await secondary.cli(['geo', 'verify', 'uploads', String(hidden.id), '--json']);
    expect(verified.code).toBe(0);
    const result = JSON.parse(verified.stdout);
    expect(result).toMatchObject({ type: 'attachment', item_id: hidden.id, state: 'synced', result: 'verified', matches_primary: true, problem: null });
    expect(result.local_checksum).toBe(result.primary_checksum);
    const repository = await secondary.cli(['geo', 'verify', 'repository', String(project.id)]);
    expect(repository.code).toBe(0);
    expect(repository.stdout).toMatch(new RegExp(`^repository ${project.id}: verified$`, 'm'));

    // A corrupted local copy: verify says so, exit 1, and the workers fetch it again.
    const item = registryOf(secondary).find((r) => r.item_type === 'attachment' && r.item_id === hidden.id)!;
    const local = localCopyPath(secondary.dataDir, item);
    const original = await readFile(local);
    await writeFile(local, Buffer.from('CORRUPTED\n'));
    const bad = await secondary.cli(['geo', 'verify', 'attachment', String(hidden.id)]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain(`attachment ${hidden.id}: failed (verification: the local copy's checksum`);
    expect(bad.stdout).toContain('marked failed (verification): the workers fetch it again');
    await waitFor(async () => (await readFile(local)).equals(original), { timeoutMs: 20_000, message: 'the corrupted copy fetched again' });
    expect((await secondary.cli(['geo', 'verify', 'attachment', String(hidden.id)])).code).toBe(0);
    expect((await secondary.cli(['geo', 'verify', 'attachment', '999999'])).code).toBe(1);
  }, 120_000);

  it('exits non-zero on an unhealthy secondary: its primary down (live), then itself down (database)', async () => {
    await primary.kill('SIGTERM');
    let result!: Awaited<ReturnType<typeof status>>;
    await waitFor(async () => {
      result = await status(secondary);
      return result.json.code === 1;
    }, { timeoutMs: 30_000, message: 'the secondary unhealthy without its primary' });
    expect(result.text.code).toBe(1);
    expect(result.screen.site).toMatchObject({ source: 'live', healthy: false });
    expect(result.screen.site.health).toContain('Replication error');
    expect(result.text.stdout).toMatch(/^Health: +Unhealthy: .*Replication error/m);

    await secondary.kill('SIGTERM');
    const down = await status(secondary);
    expect(down.json.code).toBe(1);
    expect(down.text.code).toBe(1);
    expect(down.screen.site).toMatchObject({ source: 'database', healthy: false });
    expect(down.screen.site.health).toContain(`The site at ${secondary.url.replace(/\/+$/, '')} did not answer`);
    expect(down.text.stdout).toMatch(/^Source: +database \(the site at .* cannot be reached/m);
  }, 90_000);
});
