import { spawn, type ChildProcess } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startCluster, waitFor, type SiteProcess } from '../helpers/multisite.js';

/**
 * Debian's `prometheus` server (installed by .ci/run) on loopback, scraping a real primary and a real
 * secondary with the job, labels and alert rules of deploy/prometheus/, every second.
 */

interface PromSample {
  metric: Record<string, string>;
  value: [number, string];
}

const RULES = path.resolve('deploy/prometheus/geoforge.rules.yml');

/** The `expr:` of a one-line alert rule in deploy/prometheus/geoforge.rules.yml, so the test runs what operators run. */
async function alertExpression(alert: string): Promise<string> {
  const text = await readFile(RULES, 'utf8');
  const match = new RegExp(`- alert: ${alert}\\n\\s+expr: (.+)\\n`).exec(text);
  if (!match) throw new Error(`no one-line expr for ${alert} in ${RULES}`);
  return match[1]!;
}

describe('a real Prometheus scraping a primary and a secondary', () => {
  let cluster: Awaited<ReturnType<typeof startCluster>>;
  let primary: SiteProcess;
  let secondary: SiteProcess;
  let prometheus: ChildProcess | null = null;
  let prometheusOutput = '';
  let dir = '';
  let base = '';

  async function query(expr: string): Promise<PromSample[]> {
    const response = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await response.json()) as { status: string; data: { resultType: string; result: PromSample[] }; error?: string };
    if (body.status !== 'success') throw new Error(`query ${expr}: ${body.error}`);
    return body.data.result;
  }

  beforeAll(async () => {
    // The secondary reports every 3 s, not every second: each report is a replicated row, and a log that gains
    // one every second is never idle the 1 s after which the primary appends a heartbeat.
    cluster = await startCluster(1, { secondaryEnv: { GEOFORGE_GEO_STATUS_INTERVAL_SECONDS: '3' } });
    primary = cluster.primary;
    [secondary] = cluster.secondaries as [SiteProcess];
    dir = await mkdtemp(path.join(tmpdir(), 'geoforge-prometheus-'));
    await copyFile(RULES, path.join(dir, 'geoforge.rules.yml'));
    const target = (site: SiteProcess) => `      - targets: ['${new URL(site.url).host}']\n        labels: {role: ${site.role}, site: ${site.name}}\n`;
    await writeFile(
      path.join(dir, 'prometheus.yml'),
      'global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files:\n  - geoforge.rules.yml\nscrape_configs:\n  - job_name: geoforge\n    metrics_path: /-/metrics\n    static_configs:\n' +
        target(primary) +
        target(secondary),
    );
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      'prometheus',
      [`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout!.on('data', (chunk: Buffer) => (prometheusOutput += chunk.toString()));
    prometheus.stderr!.on('data', (chunk: Buffer) => (prometheusOutput += chunk.toString()));
    await waitFor(async () => (await fetch(`${base}/-/ready`).catch(() => null))?.status === 200, { timeoutMs: 30_000, message: 'prometheus ready' }).catch(
      (error: Error) => {
        error.message += `\n${prometheusOutput.slice(-3000)}`;
        throw error;
      },
    );
    // The secondary's first status report has reached the primary, so the primary shows both nodes.
    await waitFor(async () => (await primary.api('/-/metrics', { as: null })).text.includes(`geo_cursor_last_event_id{name="${secondary.name}"`), {
      timeoutMs: 20_000,
      message: 'a status report on the primary',
    });
  });

  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
      prometheus.kill('SIGTERM');
      await exited;
    }
    await cluster?.destroy();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('scrapes both sites at least twice, and both are up', async () => {
    const scrapes = await waitFor(
      async () => {
        const result = await query('count_over_time(up{job="geoforge"}[5m])');
        return result.length === 2 && result.every((sample) => Number(sample.value[1]) >= 2) && result;
      },
      { timeoutMs: 30_000, message: 'two scrapes of each site' },
    );
    expect(scrapes.map((sample) => sample.metric.site).sort()).toEqual([primary.name, secondary.name].sort());
    const up = await query('up{job="geoforge"}');
    expect(up.map((sample) => [sample.metric.site, sample.metric.role, sample.value[1]]).sort()).toEqual(
      [
        [primary.name, 'primary', '1'],
        [secondary.name, 'secondary', '1'],
      ].sort(),
    );
  }, 60_000);

  it('stores the geo metrics of both roles', async () => {
    // The primary shows every node, the secondary itself: the secondary's repositories gauge comes from both.
    const repositories = await waitFor(async () => {
      const result = await query(`geo_repositories{name="${secondary.name}"}`);
      return result.length === 2 && result;
    });
    expect(repositories.map((sample) => sample.metric.role).sort()).toEqual(['primary', 'secondary']);
    const cursor = await query(`geo_cursor_last_event_id{role="secondary", name="${secondary.name}"}`);
    expect(cursor).toHaveLength(1);
    expect(Number(cursor[0]!.value[1])).toBeGreaterThan(0);
    const lastEvent = await query(`geo_last_event_id{role="primary", name="${primary.name}"}`);
    // Scraped at another moment than the secondary: both are positions in the same log, not comparable here.
    expect(Number(lastEvent[0]!.value[1])).toBeGreaterThan(0);
    const events = await query('geo_event_log_events{role="primary"}');
    expect(Number(events[0]!.value[1])).toBeGreaterThan(0);
    const disk = await query('geoforge_data_dir_available_bytes / geoforge_data_dir_capacity_bytes');
    expect(disk).toHaveLength(2);
    for (const sample of disk) expect(Number(sample.value[1])).toBeGreaterThan(0);
    // The secondary applies the primary's heartbeats: rate() over its counter works.
    const applied = await waitFor(async () => {
      const result = await query(`sum(increase(geo_events_applied_total{role="secondary", kind="heartbeat"}[1m]))`);
      return result.length === 1 && Number(result[0]!.value[1]) > 0 && result;
    }, { timeoutMs: 40_000, message: 'heartbeats applied' });
    expect(Number(applied[0]!.value[1])).toBeGreaterThan(0);
  }, 60_000);

  it("evaluates the alert rules: each healthy, the unhealthy-node expression empty over two healthy nodes", async () => {
    const expr = await alertExpression('GeoNodeUnhealthy');
    expect(expr).toBe('min by (name, url) (geo_node_healthy{job="geoforge"}) == 0');
    expect(await query(expr)).toEqual([]);
    // The same expression without its threshold: both nodes, healthy.
    const healthy = await query(expr.replace(/ == 0$/, ''));
    expect(healthy.map((sample) => [sample.metric.name, sample.value[1]]).sort()).toEqual(
      [
        [primary.name, '1'],
        [secondary.name, '1'],
      ].sort(),
    );
    const late = await query(await alertExpression('GeoStatusReportLate'));
    expect(late).toEqual([]);
    // Every rule of the file loaded and evaluated without an error against real series.
    const rules = await waitFor(async () => {
      const response = (await (await fetch(`${base}/api/v1/rules`)).json()) as {
        data: { groups: { rules: { name: string; health: string; lastError?: string; state: string }[] }[] };
      };
      const all = response.data.groups.flatMap((group) => group.rules);
      return all.length > 0 && all.every((rule) => rule.health !== 'unknown') && all;
    }, { timeoutMs: 20_000, message: 'rules evaluated' });
    expect(rules.filter((rule) => rule.health !== 'ok').map((rule) => `${rule.name}: ${rule.lastError}`)).toEqual([]);
    expect(rules.filter((rule) => rule.state === 'firing').map((rule) => rule.name)).toEqual([]);
  });
  it('a secondary that stops puts GeoforgeSiteDown in pending for it, and only for it', async () => {
    await secondary.kill('SIGTERM');
    const expr = await alertExpression('GeoforgeSiteDown');
    const down = await waitFor(async () => {
      const result = await query(expr);
      return result.length === 1 && result;
    }, { timeoutMs: 20_000, message: 'up == 0 for the stopped secondary' });
    expect(down[0]!.metric).toMatchObject({ site: secondary.name, role: 'secondary' });
    const alert = await waitFor(async () => {
      const response = (await (await fetch(`${base}/api/v1/alerts`)).json()) as { data: { alerts: { labels: Record<string, string>; state: string }[] } };
      return response.data.alerts.find((candidate) => candidate.labels.alertname === 'GeoforgeSiteDown');
    }, { timeoutMs: 20_000, message: 'GeoforgeSiteDown pending' });
    // `for: 2m` keeps it pending for this test's lifetime; the promtool tests cover firing.
    expect(alert).toMatchObject({ state: 'pending', labels: { site: secondary.name, severity: 'critical' } });
  });
});
