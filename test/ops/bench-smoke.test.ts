import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scenarios } from '../../bench/scenarios/index.js';

/**
 * Every bench scenario at its smoke size (BENCH_SMOKE=1: small data, one short round), so a
 * scenario that breaks fails `npm test`. The figures mean nothing here; the bench's own exit code
 * and its `<name>: ratio <x> (...)` line are what is checked. The scenarios run in two lanes,
 * each one `bench/run.ts` process running its share in turn: a scenario spends much of its time
 * waiting on servers and fixed-length rounds, and one process per lane imports the bench once.
 */
const LANES = 2;
/** The whole smoke on a loaded 2-core machine; a quiet one needs a fraction of it. */
const SMOKE_TIMEOUT_MS = 15 * 60_000;

interface Lane {
  readonly names: readonly string[];
  readonly output: string;
  readonly code: number | null;
  /** Seconds from a scenario's `== <name>:` header to its last line. */
  readonly seconds: ReadonlyMap<string, number>;
}

function runLane(names: readonly string[]): Promise<Lane> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...names], {
      env: { ...process.env, BENCH_SMOKE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const started = new Map<string, number>();
    const seconds = new Map<string, number>();
    const timeout = setTimeout(() => child.kill('SIGTERM'), SMOKE_TIMEOUT_MS - 30_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      for (const name of names) {
        if (!started.has(name) && output.includes(`== ${name}:`)) started.set(name, performance.now());
        if (started.has(name) && !seconds.has(name) && (output.includes(`\n${name}: ratio `) || output.includes(`\n${name}: broken:`))) {
          seconds.set(name, (performance.now() - started.get(name)!) / 1000);
        }
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timeout);
      resolve({ names, output, code, seconds });
    });
  });
}

describe('bench scenarios at smoke size', () => {
  let lanes: Lane[] = [];
  const laneOf = (name: string) => lanes.find((lane) => lane.names.includes(name))!;

  beforeAll(async () => {
    // The bench starts sites from dist/ (npm test builds it first).
    expect(existsSync('dist/cli.js'), 'dist/cli.js: run `npx tsc -p tsconfig.json` first').toBe(true);
    const names = scenarios.map((scenario) => scenario.name);
    lanes = await Promise.all(Array.from({ length: LANES }, (_, lane) => runLane(names.filter((_, index) => index % LANES === lane))));
  }, SMOKE_TIMEOUT_MS);

  afterAll(() => {
    const times = lanes.flatMap((lane) => [...lane.seconds]).map(([name, seconds]) => `${name} ${seconds.toFixed(1)} s`);
    console.log(`bench smoke times: ${times.join(', ')}`);
  });

  it.each(scenarios.map((scenario) => scenario.name))('%s runs and prints its ratio line', (name) => {
    const lane = laneOf(name);
    const line = lane.output.split('\n').find((text) => text.startsWith(`${name}: `));
    expect(line, `${name} printed no result line; its lane's output:\n${lane.output.slice(-4000)}`).toBeDefined();
    expect(line).toMatch(new RegExp(`^${name}: ratio \\d+\\.\\d{2} \\(.+\\)$`));
  });

  it('every lane exits 0', () => {
    for (const lane of lanes) expect(lane.code, lane.output.slice(-4000)).toBe(0);
  });
});
