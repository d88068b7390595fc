import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { AggregatorRegistry, Counter, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client';
import type { Config } from '../config.js';
import { isEnvelope, type BusMessage, type Envelope } from './bus.js';
import { registerCoordinatorMetrics } from './etcd/metrics.js';
import { startCoordinator } from './etcd/site-handle.js';
import { SiteRefLocks, type RefLockCall } from './ref-locks.js';
import { SiteThrottleCounters, type ThrottleHit } from './throttle-counters.js';

export type WorkerKind = 'request' | 'background';

/** What a worker is told at fork, in its environment. */
export const WORKER_KIND_ENV = 'GEOFORGE_WORKER_KIND';
export const WORKER_NAME_ENV = 'GEOFORGE_WORKER_NAME';
/** Set for the worker that boots first (migrations, root): the others wait for it. */
export const WORKER_FIRST_ENV = 'GEOFORGE_WORKER_FIRST';

/** How long a gather waits for a worker's answer: one that does not answer is left out (metrics) or not ready (readiness). */
const GATHER_TIMEOUT_MS = 2_000;
/** Restart backoff: doubled per crash in a row of the same slot, reset once it ran this long. */
const RESTART_BASE_MS = 250;
const RESTART_CAP_MS = 10_000;
const HEALTHY_AFTER_MS = 30_000;

/**
 * The supervisor's figures, added to the aggregated scrape. Kept here rather than beside the
 * site's metrics: the supervisor loads no site code, which is most of what a start costs.
 */
function createSupervisorMetrics(): { registry: Registry; restarts: Counter<'kind'> } {
  const registry = new Registry();
  const restarts = new Counter({ name: 'geoforge_worker_restarts_total', help: 'Workers the supervisor restarted after they died, by kind (request, background)', labelNames: ['kind'] as const, registers: [registry] });
  for (const kind of ['request', 'background']) restarts.inc({ kind }, 0);
  return { registry, restarts };
}

interface Slot {
  readonly kind: WorkerKind;
  readonly name: string;
  worker: Worker | null;
  /** Up: its site is built and it answers gathers. */
  up: boolean;
  crashes: number;
  startedAt: number;
}

/**
 * The cluster primary of `geoforge serve`: it opens no database and no HTTP port. It forks
 * `config.workers` request workers (they share the listening socket) and one background worker
 * (every schedule and queue, the Geo agent on a secondary), relays the site bus between them,
 * keeps the site-wide rate-limit counters and ref locks, aggregates /-/metrics and readiness, restarts a worker
 * that dies (with backoff, counted), and on SIGTERM drains every worker before exiting 0.
 */
export function runSupervisor(config: Config, log: Logger): void {
  const metrics = createSupervisorMetrics();
  const throttles = new SiteThrottleCounters();
  const refLocks = new SiteRefLocks();
  const slots: Slot[] = [];
  for (let i = 1; i <= config.workers; i++) slots.push({ kind: 'request', name: `request-${i}`, worker: null, up: false, crashes: 0, startedAt: 0 });
  const background: Slot = { kind: 'background', name: 'background', worker: null, up: false, crashes: 0, startedAt: 0 };
  slots.push(background);
  let port: number | null = config.port === 0 ? null : config.port;
  let stopping = false;
  /** Until when the site may take writes under its etcd leader lease (geoCoordinator). */
  let leaseUntil = 0;
  /** Whether a request worker has booted since the start: the others wait for it (see markUp). */
  let firstUp = false;
  const waitingToBoot: Array<() => void> = [];
  let nextGatherId = 1;
  const gathers = new Map<number, { answers: Map<string, unknown>; expect: Set<string>; done: () => void }>();

  const fork = (slot: Slot) => {
    slot.up = false;
    slot.startedAt = Date.now();
    const worker = cluster.fork({ [WORKER_KIND_ENV]: slot.kind, [WORKER_NAME_ENV]: slot.name, [WORKER_FIRST_ENV]: slot === slots[0] && !firstUp ? '1' : '' });
    slot.worker = worker;
    worker.on('message', (value: unknown) => {
      if (isEnvelope(value)) receive(slot, value);
    });
  };
  const send = (slot: Slot, envelope: Envelope) => {
    const worker = slot.worker;
    if (worker && worker.isConnected()) worker.send(envelope);
  };
  const others = (from: Slot) => slots.filter((slot) => slot !== from && slot.up);

  const gather = (kind: string, payload: unknown): Promise<Map<string, unknown>> => {
    const id = nextGatherId++;
    const asked = slots.filter((slot) => slot.up);
    return new Promise((resolve) => {
      const entry = { answers: new Map<string, unknown>(), expect: new Set(asked.map((slot) => slot.name)), done: () => undefined as void };
      const timer = setTimeout(() => entry.done(), GATHER_TIMEOUT_MS);
      entry.done = () => {
        clearTimeout(timer);
        gathers.delete(id);
        resolve(entry.answers);
      };
      gathers.set(id, entry);
      if (!asked.length) entry.done();
      for (const slot of asked) send(slot, { geoforge: 'gather', id, kind, payload });
    });
  };

  /** What the supervisor answers itself. */
  const answer = async (kind: string, payload: unknown): Promise<unknown> => {
    switch (kind) {
      case 'throttle':
        return throttles.hit(payload as ThrottleHit);
      case 'ref-lock':
        return refLocks.acquire(payload as RefLockCall);
      case 'ref-unlock':
        return refLocks.release(payload as RefLockCall);
      case 'boot':
        // A worker may build its site once the first one did (answered at once after a restart).
        if (!firstUp) await new Promise<void>((resolve) => waitingToBoot.push(resolve));
        return port;
      case 'ready': {
        // Ready when every worker is up and says so.
        if (slots.some((slot) => !slot.up)) return false;
        const answers = await gather('ready', null);
        return answers.size === slots.length && [...answers.values()].every((ready) => ready === true);
      }
      case 'metrics': {
        const answers = await gather('metrics', null);
        // The background worker first: gauges read from the shared database take its figure ('first').
        const ordered = [background.name, ...slots.filter((slot) => slot !== background).map((slot) => slot.name)]
          .filter((name) => answers.has(name))
          .map((name) => answers.get(name) as MetricObjectWithValues<MetricValue<string>>[]);
        ordered.push((await metrics.registry.getMetricsAsJSON()) as MetricObjectWithValues<MetricValue<string>>[]);
        return AggregatorRegistry.aggregate(ordered).metrics();
      }
      default:
        throw new Error(`the supervisor answers no "${kind}"`);
    }
  };

  const receive = (from: Slot, envelope: Envelope) => {
    switch (envelope.geoforge) {
      case 'broadcast':
        if (envelope.message.kind === 'worker-up') return markUp(from, envelope.message);
        for (const slot of others(from)) send(slot, { geoforge: 'deliver', message: envelope.message });
        return;
      case 'background':
        return send(background, { geoforge: 'deliver', message: envelope.message });
      case 'ask':
        void answer(envelope.kind, envelope.payload).then(
          (value) => send(from, { geoforge: 'answer', id: envelope.id, value }),
          (error: unknown) => send(from, { geoforge: 'answer', id: envelope.id, error: String((error as Error)?.message ?? error) }),
        );
        return;
      case 'gather':
        // A worker asks every worker (a freeze draining writes everywhere, a role switch): answered with every answer.
        void gather(envelope.kind, envelope.payload).then((answers) => send(from, { geoforge: 'answer', id: envelope.id, value: [...answers.values()] }));
        return;
      case 'answer': {
        const entry = gathers.get(envelope.id);
        if (!entry) return;
        if (envelope.error === undefined) entry.answers.set(from.name, envelope.value);
        entry.expect.delete(from.name);
        if (!entry.expect.size) entry.done();
        return;
      }
      default:
    }
  };

  const markUp = (slot: Slot, message: BusMessage) => {
    slot.up = true;
    // A role switch broadcast while this worker was booting did not reach it (broadcasts go to the
    // workers up): it compares its role with the one on disk now, and switches if they differ.
    send(slot, { geoforge: 'deliver', message: { kind: 'role-switch' } });
    // A worker (re)started takes no write until told the leader lease it may write under.
    if (config.geoCoordinator) send(slot, { geoforge: 'deliver', message: { kind: 'coordinator-lease', until: leaseUntil, status: coordinator?.status() ?? null } });
    log.info({ worker: slot.name, pid: slot.worker?.process.pid }, 'worker up');
    // The first request worker to listen tells the port the others and the background worker use.
    if (port === null && typeof message.port === 'number') port = message.port;
    if (stopping || slot.kind !== 'request' || firstUp) return;
    // The first one booted alone (migrations, root, capture triggers): the others, forked with it
    // so they load the code meanwhile, build their site now and find that done.
    firstUp = true;
    for (const release of waitingToBoot.splice(0)) release();
  };

  cluster.on('exit', (worker, code, signal) => {
    const slot = slots.find((candidate) => candidate.worker === worker);
    if (!slot) return;
    slot.worker = null;
    slot.up = false;
    refLocks.releaseAll(slot.name);
    for (const [, entry] of gathers) if (entry.expect.delete(slot.name) && !entry.expect.size) entry.done();
    if (stopping) {
      if (slots.every((candidate) => !candidate.worker)) {
        log.info('every worker stopped');
        process.exit(0);
      }
      return;
    }
    if (!firstUp) {
      // The site never booted (a port in use, an unsupported git, a bad database): restarting would only
      // loop. The worker's exit code stands for the site's (2: a configuration error, as without workers).
      log.fatal({ worker: slot.name, code, signal }, 'a worker died before the site first booted; stopping');
      for (const other of slots) other.worker?.process.kill('SIGKILL');
      process.exit(code || 1);
    }
    if (Date.now() - slot.startedAt > HEALTHY_AFTER_MS) slot.crashes = 0;
    const delayMs = Math.min(RESTART_CAP_MS, RESTART_BASE_MS * 2 ** slot.crashes);
    slot.crashes++;
    metrics.restarts.inc({ kind: slot.kind });
    log.error({ worker: slot.name, pid: worker.process.pid, code, signal, restart_in_ms: delayMs }, 'worker died; restarting it');
    setTimeout(() => {
      if (!stopping && !slot.worker) fork(slot);
    }, delayMs).unref();
  });

  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    void coordinator?.stop();
    log.info({ signal, draining: 'every worker' }, 'shutting down');
    const running = slots.filter((slot) => slot.worker);
    if (!running.length) process.exit(0);
    // The signal itself, not worker.kill(): that would cut the IPC channel the draining worker still uses.
    for (const slot of running) slot.worker!.process.kill('SIGTERM');
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  log.info({ request_workers: config.workers, pid: process.pid }, 'geoforge supervisor starting its workers');
  // All at once: the first request worker boots, the others load the code and wait for it (see markUp).
  for (const slot of slots) fork(slot);
  // The failover loop (issue 28): the supervisor outlives its workers' restarts, so its lease does too.
  const coordinator = startCoordinator(
    config,
    log,
    (until, status) => {
      leaseUntil = until;
      for (const slot of slots) send(slot, { geoforge: 'deliver', message: { kind: 'coordinator-lease', until, status } });
    },
    (reason) => failovers?.inc({ reason }),
  );
  const failovers = coordinator ? registerCoordinatorMetrics(metrics.registry, coordinator) : null;
}
