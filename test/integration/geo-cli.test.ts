import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findGeoNodeByName, storeNodeStatus, upsertGeoNode } from '../../src/geo/nodes.js';
import { buildStatus, noBlobs } from '../../src/geo/status.js';
import { startSite, type TestSite } from '../helpers/site.js';

const run = promisify(execFile);
const cli = path.resolve('dist/cli.js');

/** `geoforge geo status` and `geo nodes`, reading the database of a site that runs, then of one that stopped. */
describe('geoforge geo CLI', () => {
  let site: TestSite;
  let stopped = false;
  const env = (dataDir: string) => ({ ...process.env, GEOFORGE_DATA_DIR: dataDir, GEOFORGE_LOG_LEVEL: 'silent' });
  const geo = async (dataDir: string, ...args: string[]) => (await run('node', [cli, 'geo', ...args], { env: env(dataDir) })).stdout;

  beforeAll(async () => {
    site = await startSite({ geoSecret: '0123456789abcdef0123', nodeName: 'primary' });
    const db = site.site.db;
    const seed = (name: string) => upsertGeoNode(db, { name, url: `http://${name}.example.com`, primary: false });
    const status = (nodeId: number) =>
      buildStatus({ nodeId, lastEventId: 9, lastEventAt: Date.now(), cursorEventId: 9, cursorEventAt: Date.now(), problems: [], blobs: noBlobs(), version: '10.8.0-ee', revision: 'abc', now: Date.now() });
    const fresh = seed('fresh');
    storeNodeStatus(db, fresh.id, status(fresh.id), Date.now());
    const stale = seed('stale');
    storeNodeStatus(db, stale.id, status(stale.id), Date.now() - 600_000);
    seed('silent');
  });
  afterAll(async () => {
    if (!stopped) await site.site.stop();
    await rm(site.dataDir, { recursive: true, force: true });
  });

  it('prints every node with its status as JSON while the site runs', async () => {
    const screen = JSON.parse(await geo(site.dataDir, 'status', '--json'));
    // Without the Geo secret the CLI reads the database: this primary's status from its event log.
    expect(screen.site).toMatchObject({ name: 'primary', role: 'primary', source: 'database', healthy: true, health: 'Healthy', epoch: 0, fenced: false, oldest_failure: null, last_status_report: null });
    const lines = screen.nodes as { node: { name: string; primary: boolean }; status: Record<string, unknown> }[];
    expect(lines.map((line) => line.node.name)).toEqual(['primary', 'fresh', 'stale', 'silent']);
    const byName = Object.fromEntries(lines.map((line) => [line.node.name, line]));
    expect(byName.primary).toMatchObject({
      node: { id: findGeoNodeByName(site.site.db, 'primary')!.id, url: site.url, primary: true, enabled: true },
      status: { healthy: true, health: 'Healthy', cursor_last_event_id: null, db_replication_lag_seconds: null, version: expect.stringMatching(/-ee$/) },
    });
    expect(byName.primary.status.last_event_id).toBeGreaterThan(0);
    expect(byName.fresh.status).toMatchObject({ healthy: true, last_event_id: 9, cursor_last_event_id: 9, db_replication_lag_seconds: 0 });
    expect(byName.stale.status).toMatchObject({ healthy: false, health: expect.stringMatching(/^Status check timed out: no report for 60\d seconds \(limit 60\)$/) });
    expect(byName.silent.status).toMatchObject({ healthy: false, health: 'No status report received from this node yet', last_successful_status_check_timestamp: null });
  });

  it('prints aligned tables after the site stopped', async () => {
    await site.site.stop();
    stopped = true;
    const [own, nodeTable, failover] = (await geo(site.dataDir, 'status')).trimEnd().split('\n\n');
    expect(own.split('\n')[0]).toMatch(/^geoforge geo status: primary \(http:\/\/.+\)$/);
    expect(own).toMatch(/^Health: +Healthy$/m);
    // Below the node table: the site's role, fencing epoch, synchronous replication and promotions (issue 18).
    expect(failover.split('\n')).toEqual(['This site: primary (configured), fencing epoch 0', 'Synchronous replication: off (geoSyncReplicas 0)', 'Promotions: none (the first primary still is)']);
    const table = nodeTable.split('\n');
    expect(table[0]).toMatch(/^id\s+name\s+role\s+healthy\s+health\s+lag s\s+last event\s+cursor\s+last report$/);
    expect(table).toHaveLength(5);
    const column = (title: string) => {
      const match = new RegExp(`(^|  )${title}(  |$)`).exec(table[0])!;
      return match.index + match[1].length;
    };
    const row = (name: string) => table.find((line) => line.split(/\s+/)[1] === name)!;
    expect(row('primary').slice(column('role'), column('healthy')).trim()).toBe('primary');
    expect(row('primary').slice(column('healthy'), column('health')).trim()).toBe('yes');
    expect(row('fresh').slice(column('lag s'), column('last event')).trim()).toBe('0');
    expect(row('fresh').slice(column('last report')).trim()).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(row('stale').slice(column('healthy'), column('health')).trim()).toBe('no');
    expect(row('silent').slice(column('health'), column('lag s')).trim()).toBe('No status report received from this node yet');
    expect(row('silent').slice(column('last report')).trim()).toBe('-');

    const nodes = (await geo(site.dataDir, 'nodes')).trimEnd().split('\n');
    expect(nodes[0]).toMatch(/^id\s+name\s+url\s+primary\s+enabled$/);
    expect(nodes.slice(1).map((line) => line.split(/\s+/).slice(1))).toEqual([
      ['primary', site.url, 'true', 'true'],
      ['fresh', 'http://fresh.example.com', 'false', 'true'],
      ['stale', 'http://stale.example.com', 'false', 'true'],
      ['silent', 'http://silent.example.com', 'false', 'true'],
    ]);
  });

  it('names the missing database instead of creating one', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'geoforge-geo-cli-'));
    try {
      const failed = await geo(empty, 'nodes').catch((error: { code: number; stderr: string }) => error);
      expect(failed).toMatchObject({ code: 2 });
      expect((failed as { stderr: string }).stderr).toContain(`no database at ${path.join(empty, 'geoforge.sqlite')}`);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
