import { spawn } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTwoSites, waitFor, type SiteProcess } from '../helpers/multisite.js';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a Prometheus text exposition (label values here never hold quotes or commas). */
function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key!, value!]));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** `promtool check metrics` on the exposition (stdin): its exit code and what it printed. CI installs promtool; a missing one fails. */
function promtoolCheck(text: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
    child.stdin.end(text);
  });
}

async function scrape(site: SiteProcess): Promise<{ text: string; samples: Sample[] }> {
  const response = await site.api('/-/metrics', { as: null });
  expect(response.status).toBe(200);
  expect(String(response.headers['content-type'])).toMatch(/^text\/plain; version=0\.0\.4/);
  return { text: response.text, samples: parseExposition(response.text) };
}

const valueOf = (samples: Sample[], name: string, node: string) => samples.find((s) => s.name === name && s.labels.name === node)?.value;
const nodesOf = (samples: Sample[], name: string) => samples.filter((s) => s.name === name).map((s) => s.labels.name).sort();

const PER_KIND = ['repositories', 'wikis', 'lfs_objects', 'job_artifacts', 'attachments', 'snippet_repositories', 'group_wiki_repositories'].flatMap((kind) => [`geo_${kind}`, `geo_${kind}_synced`, `geo_${kind}_failed`]);
/** Series every node has, the primary included. */
const EVERY_NODE = [...PER_KIND, 'geo_last_event_id', 'geo_last_event_timestamp', 'geo_last_successful_status_check_timestamp', 'geo_status_failed_total'];
/** Series only a node with a cursor has. */
const SECONDARY_ONLY = ['geo_cursor_last_event_id', 'geo_cursor_last_event_timestamp', 'geo_db_replication_lag_seconds', 'geo_cursor_lag_seconds'];

describe('Geo Prometheus metrics on a primary and a secondary', () => {
  let primary: SiteProcess;
  let secondary: SiteProcess;

  useTwoSites({ primaryEnv: { GEOFORGE_GEO_STATUS_STALE_SECONDS: '3' } }, (sites) => ({ primary, secondary } = sites));
  beforeAll(async () => {
    // The secondary's first status report has reached the primary.
    await waitFor(
      async () => {
        const samples = (await scrape(primary)).samples;
        return valueOf(samples, 'geo_cursor_last_event_id', secondary.name) !== undefined && valueOf(samples, 'geo_last_event_id', secondary.name) !== undefined;
      },
      { message: 'a status report with a cursor on the primary' },
    );
  });

  it('passes promtool check metrics on both roles', async () => {
    for (const site of [primary, secondary]) {
      const { text } = await scrape(site);
      const result = await promtoolCheck(text);
      expect(result.output, `${site.name}: promtool check metrics`).toBe('');
      expect(result.code, `${site.name}: promtool exit code`).toBe(0);
      expect(text).toContain('# TYPE geo_status_failed_total counter');
      expect(text).toContain('# TYPE geo_cursor_lag_seconds gauge');
      expect(text).toContain('# TYPE geo_repositories gauge');
    }
  });

  it('shows every node on the primary and itself on the secondary, labelled name and url', async () => {
    const onPrimary = (await scrape(primary)).samples;
    for (const name of EVERY_NODE) expect(nodesOf(onPrimary, name), name).toEqual([primary.name, secondary.name]);
    for (const name of SECONDARY_ONLY) expect(nodesOf(onPrimary, name), name).toEqual([secondary.name]);
    for (const sample of onPrimary.filter((s) => s.name.startsWith('geo_') && s.labels.name)) {
      expect(sample.labels.url, `${sample.name}{name="${sample.labels.name}"}`).toBe(sample.labels.name === primary.name ? primary.url : secondary.url);
    }

    const onSecondary = (await scrape(secondary)).samples;
    for (const name of [...EVERY_NODE, ...SECONDARY_ONLY]) expect(nodesOf(onSecondary, name), name).toEqual([secondary.name]);
    expect(onSecondary.find((s) => s.name === 'geo_cursor_lag_seconds')?.labels.url).toBe(secondary.url);
    // The sync counters and histograms of the agent are there too.
    expect(onSecondary.some((s) => s.name === 'geo_events_applied_total')).toBe(true);
    expect(onSecondary.some((s) => s.name === 'geo_sync_lag_seconds_bucket' && s.labels.type === 'repository')).toBe(true);
  });

  it("moves with the primary's writes: the secondary's cursor gauge reaches the primary's newest event", async () => {
    const created = await primary.api('/groups', { method: 'POST', body: { name: 'metrics-group', path: `metrics-${Date.now()}` } });
    expect(created.status).toBe(201);
    const written = primary.lastEventId();
    const newest = await waitFor(async () => {
      const value = valueOf((await scrape(primary)).samples, 'geo_last_event_id', primary.name)!;
      return value >= written && value;
    });
    await waitFor(async () => {
      const own = (await scrape(secondary)).samples;
      expect(valueOf(own, 'geo_cursor_last_event_id', secondary.name)).toBeGreaterThanOrEqual(newest);
      expect(valueOf(own, 'geo_cursor_lag_seconds', secondary.name)).toBeLessThan(5);
      return true;
    }, { message: "the secondary's cursor gauge" });
    // The secondary reports it, and the primary shows it for that node.
    await waitFor(async () => (valueOf((await scrape(primary)).samples, 'geo_cursor_last_event_id', secondary.name) ?? 0) >= newest, {
      message: "the secondary's reported cursor on the primary",
    });
  });

  it('counts repositories as the secondary syncs them, on the secondary and as reported to the primary', async () => {
    const before = valueOf((await scrape(secondary)).samples, 'geo_repositories_synced', secondary.name)!;
    const created = await primary.api('/projects', { method: 'POST', body: { name: `metrics-${Date.now()}` } });
    expect(created.status).toBe(201);
    for (const site of [secondary, primary]) {
      await waitFor(
        async () => {
          const samples = (await scrape(site)).samples;
          const synced = valueOf(samples, 'geo_repositories_synced', secondary.name)!;
          expect(synced).toBeGreaterThan(before);
          expect(synced).toBe(valueOf(samples, 'geo_repositories', secondary.name));
          expect(valueOf(samples, 'geo_repositories_failed', secondary.name)).toBe(0);
          return true;
        },
        { timeoutMs: 20_000, message: `geo_repositories_synced on ${site.name}` },
      );
    }
  });

  it('counts failed status checks and growing lag for a silent secondary, and drops the series of a deleted node', async () => {
    // Scrapes before the first report counted too: a node that never reported failed its checks.
    const before = valueOf((await scrape(primary)).samples, 'geo_status_failed_total', secondary.name)!;
    await secondary.kill('SIGKILL');
    const silent = await waitFor(
      async () => {
        const samples = (await scrape(primary)).samples;
        const failed = valueOf(samples, 'geo_status_failed_total', secondary.name)!;
        // Heartbeats keep the primary's log moving, so the dead secondary's oldest unapplied event ages.
        const lag = valueOf(samples, 'geo_cursor_lag_seconds', secondary.name) ?? 0;
        return failed > before && lag > 1 && { failed, lag };
      },
      { timeoutMs: 15_000, message: 'a failed status check of the silent secondary' },
    );
    const later = valueOf((await scrape(primary)).samples, 'geo_status_failed_total', secondary.name)!;
    expect(later).toBeGreaterThan(silent.failed);
    expect(valueOf((await scrape(primary)).samples, 'geo_status_failed_total', primary.name)).toBe(0);

    const nodes = await primary.api('/geo_nodes');
    const node = nodes.body.find((candidate: { name: string }) => candidate.name === secondary.name);
    expect((await primary.api(`/geo_nodes/${node.id}`, { method: 'DELETE' })).status).toBe(204);
    const after = await scrape(primary);
    expect(after.samples.filter((s) => s.labels.name === secondary.name)).toEqual([]);
    expect(nodesOf(after.samples, 'geo_last_event_id')).toEqual([primary.name]);
    expect((await promtoolCheck(after.text)).code).toBe(0);
  });
});
