import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { scenarios } from '../../bench/scenarios/index.js';

/**
 * Every bench scenario runs at its smoke size (BENCH_SMOKE=1: small data, one short round) as
 * `npm run bench <name>` runs it, so a scenario that breaks fails `npm test`. Its figures are not
 * asserted: they mean nothing at that size, on a machine shared with the rest of the suite.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

function runScenario(name: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', name], {
      cwd: ROOT,
      env: { ...process.env, BENCH_SMOKE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('every bench scenario at its smoke size', () => {
  it('names each scenario once', () => {
    const names = scenarios.map((scenario) => scenario.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeGreaterThan(10);
  });

  for (const scenario of scenarios) {
    it(`${scenario.name} runs and reports its ratio`, { timeout: 300_000 }, async () => {
      const { code, output } = await runScenario(scenario.name);
      expect(output, output.slice(-4000)).toMatch(new RegExp(`^${scenario.name}: ratio \\d+(\\.\\d+)? \\(`, 'm'));
      expect(code, output.slice(-4000)).toBe(0);
    });
  }
});
