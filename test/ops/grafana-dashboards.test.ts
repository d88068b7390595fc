import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitClient, remoteUrl } from '../helpers/git.js';
import { FAST_SYNC_ENV } from '../helpers/geo-blobs.js';
import { ROOT_TOKEN, startCluster, waitFor, type SiteProcess } from '../helpers/multisite.js';

/**
 * Every query of deploy/grafana/dashboards/*.json (panel targets and variable queries) names
 * metrics that a running primary or secondary exposes on /-/metrics, with the labels the query
 * matches on or groups by, and route templates that exist: a renamed metric, label or route breaks
 * this test, not a dashboard. The queries also pass promtool's parser.
 */

const DIR = path.resolve('deploy/grafana/dashboards');
/** Labels Prometheus adds from the scrape configuration (deploy/prometheus/prometheus.yml), not the site. */
const TARGET_LABELS = new Set(['job', 'instance', 'site', 'role']);
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'inf', 'nan']);

interface Sample {
  name: string;
  labels: Record<string, string>;
}

interface Matcher {
  label: string;
  op: string;
  value: string;
}

interface Selector {
  metric: string;
  matchers: Matcher[];
}

interface Query {
  where: string;
  expr: string;
}

function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$/.exec(line);
    if (!match) continue;
    samples.push({ name: match[1]!, labels: Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, k, v]) => [k!, v!])) });
  }
  return samples;
}

/** Grafana's variables replaced by what they stand for in a plain query. */
const expand = (expr: string) => expr.replaceAll('$__rate_interval', '5m').replace(/\$(\w+)/g, '.*');

/** The metric selectors of a PromQL expression, and the label names it groups by. */
export function selectorsOf(expr: string): { selectors: Selector[]; grouping: string[] } {
  const grouping: string[] = [];
  let text = expr.replace(/\b(by|without|on|ignoring)\s*\(([^)]*)\)/g, (_, _kw, labels: string) => {
    grouping.push(...labels.split(',').map((label) => label.trim()).filter(Boolean));
    return ' ';
  });
  text = text.replace(/\[[^\]]*\]/g, ' ');
  const selectors: Selector[] = [];
  const token = /([a-zA-Z_:][a-zA-Z0-9_:]*)?\s*(\{[^}]*\})|([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?|"(?:[^"\\]|\\.)*"|\d+(?:\.\d+)?(?:e\d+)?/g;
  for (const match of text.matchAll(token)) {
    const [, withBraces, braces, bare, call] = match;
    const metric = withBraces ?? (call ? undefined : bare);
    if (!metric || KEYWORDS.has(metric)) continue;
    const matchers = [...(braces ?? '').matchAll(/(\w+)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"/g)].map(([, label, op, value]) => ({ label: label!, op: op!, value: value! }));
    selectors.push({ metric, matchers });
  }
  return { selectors, grouping };
}

async function dashboardQueries(): Promise<Query[]> {
  const queries: Query[] = [];
  for (const file of (await readdir(DIR)).filter((name) => name.endsWith('.json'))) {
    const dashboard = JSON.parse(await readFile(path.join(DIR, file), 'utf8'));
    for (const panel of dashboard.panels) for (const target of panel.targets ?? []) queries.push({ where: `${file} "${panel.title}" ${target.refId}`, expr: target.expr });
    for (const variable of dashboard.templating.list) {
      if (variable.type !== 'query') continue;
      const query = typeof variable.query === 'string' ? variable.query : variable.query?.query;
      const match = /^label_values\((.*),\s*(\w+)\)$/.exec(query);
      expect(match, `${file} variable ${variable.name}: label_values(selector, label)`).not.toBeNull();
      queries.push({ where: `${file} variable ${variable.name}`, expr: `max by (${match![2]}) (${match![1]})` });
    }
  }
  return queries;
}

describe('the Grafana dashboards query what the sites expose', () => {
  let cluster: Awaited<ReturnType<typeof startCluster>>;
  let primary: SiteProcess;
  let secondary: SiteProcess;
  let scratch: string;
  const git = gitClient(tmpdir(), 60_000);

  beforeAll(async () => {
    cluster = await startCluster(1, { secondaryEnv: FAST_SYNC_ENV });
    primary = cluster.primary;
    [secondary] = cluster.secondaries as [SiteProcess];
    scratch = await mkdtemp(path.join(tmpdir(), 'geoforge-dashboards-'));
  });
  afterAll(async () => {
    await cluster?.destroy();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it('every dashboard is provisioning JSON with a uid, the datasource variable and unique panel ids', async () => {
    const files = (await readdir(DIR)).filter((name) => name.endsWith('.json'));
    expect(files.sort()).toEqual(['geoforge-api.json', 'geoforge-git.json', 'geoforge-replication.json']);
    for (const file of files) {
      const dashboard = JSON.parse(await readFile(path.join(DIR, file), 'utf8'));
      expect(dashboard.uid).toBe(file.replace(/\.json$/, ''));
      expect(dashboard.id ?? null).toBeNull();
      expect(dashboard.templating.list[0]).toMatchObject({ name: 'datasource', type: 'datasource', query: 'prometheus' });
      const ids = dashboard.panels.map((panel: { id: number }) => panel.id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const panel of dashboard.panels) expect(panel.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
    }
  });

  it('every query parses (promtool check rules on the queries as recording rules)', async () => {
    const queries = await dashboardQueries();
    const rules = queries.map((query, index) => `      - record: dashboard:query_${index}\n        expr: ${JSON.stringify(expand(query.expr))}\n`).join('');
    const file = path.join(scratch, 'queries.rules.yml');
    await writeFile(file, `groups:\n  - name: dashboards\n    rules:\n${rules}`);
    const { stdout } = await promisify(execFile)('promtool', ['check', 'rules', file]).catch((error: { stdout: string; stderr: string }) => {
      throw new Error(`${error.stdout}${error.stderr}`);
    });
    expect(stdout).toContain(`SUCCESS: ${queries.length} rules found`);
  });

  it('every metric a panel queries exists on a primary or a secondary, with the labels and route templates it uses', async () => {
    // Traffic that makes the series exist: a push and a clone (git routes), a synced repository on the secondary.
    const project = (await primary.api('/projects', { method: 'POST', body: { name: 'dashboards', default_branch: 'master' } })).body;
    const work = path.join(scratch, 'work');
    await git(['init', '--quiet', '-b', 'master', work]);
    await writeFile(path.join(work, 'README.md'), '# dashboards\n');
    await git(['add', '-A'], work);
    await git(['commit', '--quiet', '-m', 'first'], work);
    const root = { username: 'root', token: ROOT_TOKEN };
    await git(['push', '--quiet', remoteUrl(primary.url, project, root), 'HEAD:refs/heads/master'], work);
    await git(['clone', '--quiet', remoteUrl(primary.url, project, root), path.join(scratch, 'clone')]);
    await waitFor(async () => /^geo_sync_total\{type="repository",outcome="synced"\} [1-9]/m.test((await secondary.api('/-/metrics', { as: null })).text), {
      timeoutMs: 30_000,
      message: 'a repository synced on the secondary',
    });
    await waitFor(async () => (await primary.api('/-/metrics', { as: null })).text.includes(`geo_cursor_last_event_id{name="${secondary.name}"`), {
      timeoutMs: 20_000,
      message: "the secondary's status report on the primary",
    });
    const samples = [
      ...parseExposition((await primary.api('/-/metrics', { as: null })).text),
      ...parseExposition((await secondary.api('/-/metrics', { as: null })).text),
    ];
    const byName = new Map<string, Sample[]>();
    for (const sample of samples) byName.set(sample.name, [...(byName.get(sample.name) ?? []), sample]);

    const problems: string[] = [];
    const queries = await dashboardQueries();
    // node (replication), site and route (API), site (git): the variables' label_values queries are checked too.
    expect(queries.filter((query) => query.where.includes(' variable ')).map((query) => query.where.split(' variable ')[1])).toEqual(['site', 'route', 'site', 'node']);
    let checked = 0;
    for (const query of queries) {
      const { selectors, grouping } = selectorsOf(expand(query.expr));
      if (!selectors.length) problems.push(`${query.where}: no metric in ${query.expr}`);
      for (const { metric, matchers } of selectors) {
        const found = byName.get(metric);
        if (!found) {
          problems.push(`${query.where}: no metric ${metric} on either site`);
          continue;
        }
        checked++;
        const labels = new Set(found.flatMap((sample) => Object.keys(sample.labels)));
        for (const label of [...matchers.map((matcher) => matcher.label), ...grouping]) {
          if (!TARGET_LABELS.has(label) && !labels.has(label)) problems.push(`${query.where}: ${metric} has no label ${label}`);
        }
        // Route templates are names in the code: a query's route must match a route some request was counted under.
        for (const matcher of matchers.filter((candidate) => candidate.label === 'route' && candidate.value !== '.*')) {
          const pattern = new RegExp(`^(?:${matcher.value})$`);
          if (!found.some((sample) => (matcher.op === '=' ? sample.labels.route === matcher.value : pattern.test(sample.labels.route ?? '')))) {
            problems.push(`${query.where}: ${metric} has no route matching ${matcher.op}"${matcher.value}"`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(30);
  }, 90_000);
});
