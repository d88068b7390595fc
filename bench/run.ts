// `npm run bench [scenario...]`: runs the scenarios named, or all of them, each ending with the line
// `<scenario>: ratio <x> (<details>)`. Exit 0 whatever the ratios (a bench is a report), 1 when a
// scenario broke, 2 for an unknown scenario name.
import os from 'node:os';
import { LOAD_CORE, pinSelf } from './lib/cpu.js';
import type { Scenario } from './lib/scenario.js';
import { Scope } from './lib/scope.js';
import { scenarios } from './scenarios/index.js';

function select(args: readonly string[]): readonly Scenario[] {
  if (!args.length) return scenarios;
  return args.map((name) => scenarios.find((candidate) => candidate.name === name) ?? usage(`unknown scenario "${name}"`));
}

function usage(problem: string): never {
  console.error(`bench: ${problem}\nusage: npm run bench [scenario...]\nscenarios:`);
  for (const scenario of scenarios) console.error(`  ${scenario.name.padEnd(20)} ${scenario.summary}`);
  process.exit(2);
}

/** Runs one scenario; its scope is closed even on failure or Ctrl-C, so no server or temp dir is left behind. */
async function runScenario(scenario: Scenario): Promise<boolean> {
  const scope = new Scope();
  let interrupted = false;
  const interrupt = (signal: NodeJS.Signals) => {
    interrupted = true;
    console.error(`bench: ${signal}, cleaning up`);
    scope.close().finally(() => process.exit(128 + os.constants.signals[signal]));
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  console.log(`== ${scenario.name}: ${scenario.summary}`);
  try {
    const outcome = await scenario.run(scope);
    await scope.close();
    console.log(`${scenario.name}: ratio ${outcome.ratio.toFixed(2)} (${outcome.details})`);
    return true;
  } catch (error) {
    await scope.close();
    // Requests fail once an interrupt has stopped the servers; that is not a broken scenario.
    if (!interrupted) console.error(`${scenario.name}: broken:`, error);
    return false;
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}

const selected = select(process.argv.slice(2));
// The load generator (autocannon, in this process) gets its own core; servers are started on the other.
pinSelf(LOAD_CORE);
let broken = 0;
for (const scenario of selected) if (!(await runScenario(scenario))) broken++;
process.exit(broken ? 1 : 0);
