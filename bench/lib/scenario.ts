import type { Scope } from './scope.js';

/** What a scenario reports: run.ts prints it as the last line, `<name>: ratio <x> (<details>)`. */
export interface Outcome {
  /** Geoforge over the limit baseline; higher is better. */
  readonly ratio: number;
  readonly details: string;
}

export interface Scenario {
  /** The name `npm run bench <name>` selects. */
  readonly name: string;
  readonly summary: string;
  /** Throws when the scenario itself breaks (a server will not start, requests fail); the scope cleans up either way. */
  run(scope: Scope): Promise<Outcome>;
}
