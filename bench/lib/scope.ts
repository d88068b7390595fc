import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * Cleanups of one scenario, run newest first when it ends, fails or is interrupted, so no
 * server process or seeded temp dir outlives the bench.
 */
export class Scope {
  readonly #cleanups: Array<() => unknown> = [];
  #closing: Promise<void> | null = null;

  defer(cleanup: () => unknown): void {
    this.#cleanups.push(cleanup);
  }

  /** Idempotent: a Ctrl-C and the failing scenario it causes both wait for the same cleanup run. */
  close(): Promise<void> {
    this.#closing ??= this.#runCleanups();
    return this.#closing;
  }

  async #runCleanups(): Promise<void> {
    for (let cleanup = this.#cleanups.pop(); cleanup; cleanup = this.#cleanups.pop()) {
      try {
        await cleanup();
      } catch (error) {
        console.error('bench: cleanup failed:', error);
      }
    }
  }
}

/** A fresh directory under the OS temp dir, removed when the scope closes. */
export async function tempDir(scope: Scope, name: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `geoforge-bench-${name}-`));
  scope.defer(() => rm(dir, { recursive: true, force: true }));
  return dir;
}
