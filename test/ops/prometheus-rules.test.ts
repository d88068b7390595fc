import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const DIR = path.resolve('deploy/prometheus');

/** promtool (Debian package `prometheus`, installed by .ci/run); its output, or the failure with what it printed. */
async function promtool(...args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run('promtool', args, { cwd: DIR });
    return stdout + stderr;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`promtool ${args.join(' ')} failed:\n${failed.stdout ?? ''}${failed.stderr ?? failed.message}`);
  }
}

describe('deploy/prometheus', () => {
  it('the scrape configuration and its rule files pass promtool check config', async () => {
    expect(await promtool('check', 'config', 'prometheus.yml')).toMatch(/SUCCESS: prometheus\.yml is valid/);
  });

  it('every rule file passes promtool check rules', async () => {
    const rules = readdirSync(DIR).filter((name) => name.endsWith('.rules.yml'));
    expect(rules.length).toBeGreaterThan(0);
    for (const file of rules) expect(await promtool('check', 'rules', file)).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('every alert has a unit test that makes it fire, and the tests pass (promtool test rules)', async () => {
    const tests = readdirSync(DIR).filter((name) => name.endsWith('.test.yml'));
    expect(tests.length).toBeGreaterThan(0);
    expect(await promtool('test', 'rules', ...tests)).toMatch(/SUCCESS/);
    const ruleText = (await Promise.all(readdirSync(DIR).filter((n) => n.endsWith('.rules.yml')).map((n) => readFile(path.join(DIR, n), 'utf8')))).join('\n');
    const testText = (await Promise.all(tests.map((n) => readFile(path.join(DIR, n), 'utf8')))).join('\n');
    const alerts = [...ruleText.matchAll(/^\s*- alert: (\w+)$/gm)].map((m) => m[1]!);
    expect(alerts.length).toBeGreaterThanOrEqual(15);
    // A test that fires the alert: its name followed by a non-empty exp_alerts list.
    const fired = new Set([...testText.matchAll(/alertname: (\w+)\n\s*exp_alerts:\n\s*- exp_labels/g)].map((m) => m[1]!));
    expect(alerts.filter((name) => !fired.has(name))).toEqual([]);
  });
});
