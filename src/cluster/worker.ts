import { setPriority } from 'node:os';
import type { Config } from '../config.js';
import { createLogger } from '../observability/logger.js';
import { createSite } from '../server.js';
import { lockRefsAcrossProcesses } from '../git/ref-lock.js';
import { WorkerBus } from './bus.js';
import { WORKER_FIRST_ENV, WORKER_KIND_ENV, WORKER_NAME_ENV } from './supervisor.js';

/** How long a stopping worker lets the requests in flight finish. */
const DRAIN_MS = 25_000;
/** The background worker's niceness: requests win the CPU when both want it. */
const BACKGROUND_NICENESS = 10;

/** A cluster worker of `geoforge serve`: one request worker or the background worker (see supervisor.ts). */
export async function runWorker(config: Config): Promise<void> {
  const kind = process.env[WORKER_KIND_ENV] === 'background' ? 'background' : 'request';
  const name = process.env[WORKER_NAME_ENV] ?? kind;
  const log = createLogger(config.logLevel).child({ worker: name });
  if (kind === 'background') {
    try {
      setPriority(BACKGROUND_NICENESS);
    } catch (error) {
      log.warn({ err: error }, 'could not lower the background worker priority');
    }
  }
  const bus = new WorkerBus();
  // A merge in this worker and one in another must not both move a branch; wiki writes and checksums queue site-wide too (cluster/ref-locks.ts).
  lockRefsAcrossProcesses({
    acquire: (key) => bus.ask<void>('ref-lock', { key, holder: name }),
    // Not awaited: the supervisor reads this worker's messages in order, so a later acquire finds the lock let go.
    release: (key) => void bus.ask('ref-unlock', { key, holder: name }).catch(() => undefined),
  });
  // The first request worker migrates and ensures root alone; the others build theirs after it, on
  // the port it listens on (port 0 picks one). The code is loaded meanwhile: that is most of a boot.
  const port = process.env[WORKER_FIRST_ENV] === '1' ? undefined : ((await bus.ask<number | null>('boot', null)) ?? undefined);
  const site = await createSite(config, { log, process: { kind, bus, name } });
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'worker draining');
    site.stop(DRAIN_MS).then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, 'worker stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  // Ctrl-C reaches every process of the group: the supervisor drains the workers.
  process.on('SIGINT', () => undefined);
  // The supervisor gone (killed), the site is down: nothing relays the bus, and a site started
  // again on the same data must not find this one still writing. A drain closes the channel last.
  process.on('disconnect', () => {
    if (!stopping) process.exit(1);
  });
  await site.start(port);
}
