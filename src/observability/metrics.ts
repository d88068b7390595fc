import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { BLOB_TYPES } from '../geo/blobs.js';
import type { BlobKind } from '../storage/blob-store.js';
import type { StoreHealth } from '../storage/object-store.js';
import { createGeoStatusMetrics, type GeoStatusMetrics } from './geo-gauges.js';

export interface SiteMetrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly geo: GeoSyncMetrics;
  /** The geo_* status gauges, collected from GeoNodeStatus at scrape time. */
  readonly geoStatus: GeoStatusMetrics;
  /** LFS object bytes served (download) and stored (upload) over the LFS object routes. */
  readonly lfsBytes: Counter<'direction'>;
  /** Synchronous replication and fencing on this site (issue 18). */
  readonly geoFailover: GeoFailoverMetrics;
  /** Admission control: requests in flight, queued and refused per limiter (api/admission). */
  readonly admission: AdmissionMetrics;
  /** Object store calls that failed, by blob kind and operation, and whether each kind's store answers. */
  readonly objectStore: StoreHealth;
}

/** The limiters' figures: counted as they happen (refusals, waits), read at scrape time (in flight, queued). */
export interface AdmissionMetrics {
  readonly rejected: Counter<'limiter' | 'reason'>;
  /** How long requests that had to queue waited, admitted or not. */
  readonly queueWait: Histogram<'limiter'>;
  /** Where the in-flight and queued gauges read from at scrape time. */
  observe(source: () => readonly AdmissionFigures[]): void;
}

export interface AdmissionFigures {
  readonly limiter: string;
  readonly inFlight: number;
  readonly queued: number;
  /** The configured limit (0: none). */
  readonly limit: number;
}

/** What the failover code counts; the epoch and role are collected at scrape time. */
export interface GeoFailoverMetrics {
  /** Writes answered after waiting for secondaries, by outcome: applied, timeout, unconfirmed (answered without waiting: degraded or too few secondaries). */
  readonly syncWrites: Counter<'outcome'>;
  readonly syncWait: Histogram;
  /** 1 while the primary answers writes synchronously, 0 while degraded to asynchronous (after a timeout). */
  readonly synchronous: Gauge;
  /** Where the fencing gauges (geo_fencing_epoch, geo_primary_fenced) read from at scrape time. */
  observe(source: () => { epoch: number; fenced: boolean }): void;
}

/** What a secondary's agent and sync workers count (the geo_* status gauges are collected from GeoNodeStatus). */
export interface GeoSyncMetrics {
  /** Events applied from the primary's log, by kind (row, blob, heartbeat). */
  readonly eventsApplied: Counter<'kind'>;
  /** Failed steps of the replication loop (each one backs off), by reason: unreachable, http, gap, fenced, other. */
  readonly replicationErrors: Counter<'reason'>;
  /** Finished syncs by item type and outcome (synced, failed, deleted). */
  readonly syncs: Counter<'type' | 'outcome'>;
  readonly syncDuration: Histogram<'type' | 'outcome'>;
  /** From the primary's event time to this site's synced time, per item type. */
  readonly syncLag: Histogram<'type'>;
}

/** One registry per site, so two sites in one test process never mix their figures. */
export function createSiteMetrics(): SiteMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters, which promtool's lint refuses; the per-type gauges without the suffix stay.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);
  const labelNames = ['method', 'route', 'status'] as const;
  return {
    registry,
    httpRequests: new Counter({ name: 'http_requests_total', help: 'HTTP requests by route template and status', labelNames, registers: [registry] }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by route template and status',
      labelNames,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    geo: createGeoSyncMetrics(registry),
    geoStatus: createGeoStatusMetrics(registry),
    lfsBytes: createLfsBytes(registry),
    geoFailover: createGeoFailoverMetrics(registry),
    admission: createAdmissionMetrics(registry),
    objectStore: createObjectStoreMetrics(registry),
  };
}

function createAdmissionMetrics(registry: Registry): AdmissionMetrics {
  const registers = [registry];
  let source: () => readonly AdmissionFigures[] = () => [];
  const gauge = (name: string, help: string, read: (figures: AdmissionFigures) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['limiter'] as const,
      registers,
      collect() {
        for (const figures of source()) this.set({ limiter: figures.limiter }, read(figures));
      },
    });
  gauge('admission_in_flight', 'Requests holding a slot of each limiter (api, git_upload_pack, git_receive_pack, git_archive)', (figures) => figures.inFlight);
  gauge('admission_queued', 'Requests waiting for a slot of each limiter', (figures) => figures.queued);
  gauge('admission_limit', 'Slots of each limiter as configured (0: unlimited)', (figures) => figures.limit);
  return {
    rejected: new Counter({
      name: 'admission_rejected_total',
      help: 'Requests refused by each limiter: queue_full (429 at once) or queue_timeout (503 after waiting)',
      labelNames: ['limiter', 'reason'] as const,
      registers,
    }),
    queueWait: new Histogram({
      name: 'admission_queue_wait_seconds',
      help: 'How long requests that found every slot taken waited in the queue, admitted or refused',
      labelNames: ['limiter'] as const,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    observe: (next) => {
      source = next;
    },
  };
}

/** The object store's health as its calls find it: an error counter and a gauge per kind that the last call sets. */
function createObjectStoreMetrics(registry: Registry): StoreHealth {
  const errors = new Counter({
    name: 'geoforge_object_store_errors_total',
    help: 'Object store calls that failed (unreachable, timed out or refused), by blob kind and operation',
    labelNames: ['kind', 'op'] as const,
    registers: [registry],
  });
  const up = new Gauge({ name: 'geoforge_object_store_up', help: "1 when the blob kind's object store answered its last call, 0 when that call failed", labelNames: ['kind'] as const, registers: [registry] });
  return {
    failed(kind: BlobKind, op: string) {
      errors.inc({ kind, op });
      up.set({ kind }, 0);
    },
    answered(kind: BlobKind) {
      up.set({ kind }, 1);
    },
  };
}

function createGeoFailoverMetrics(registry: Registry): GeoFailoverMetrics {
  const registers = [registry];
  const syncWrites = new Counter({
    name: 'geo_sync_replication_writes_total',
    help: 'Writes under synchronous replication (geoSyncReplicas > 0) by outcome: applied by enough secondaries, timeout, or unconfirmed while degraded',
    labelNames: ['outcome'] as const,
    registers,
  });
  for (const outcome of ['applied', 'timeout', 'unconfirmed']) syncWrites.inc({ outcome }, 0);
  let source = () => ({ epoch: 0, fenced: false });
  new Gauge({
    name: 'geo_fencing_epoch',
    help: 'The highest fencing epoch this site knows (raised by each promotion)',
    registers,
    collect() {
      this.set(source().epoch);
    },
  });
  new Gauge({
    name: 'geo_primary_fenced',
    help: '1 on a primary that knows of a higher epoch: it refuses writes until demoted',
    registers,
    collect() {
      this.set(source().fenced ? 1 : 0);
    },
  });
  return {
    observe: (next) => {
      source = next;
    },
    syncWrites,
    syncWait: new Histogram({
      name: 'geo_sync_replication_wait_seconds',
      help: 'How long a write waited for secondaries to apply its event',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    synchronous: new Gauge({ name: 'geo_sync_replication_synchronous', help: '1 while writes wait for geoSyncReplicas secondaries, 0 while degraded to asynchronous or off', registers }),
  };
}

function createLfsBytes(registry: Registry): Counter<'direction'> {
  const counter = new Counter({ name: 'lfs_transferred_bytes_total', help: 'LFS object bytes downloaded from and uploaded to this site', labelNames: ['direction'] as const, registers: [registry] });
  for (const direction of ['download', 'upload']) counter.inc({ direction }, 0);
  return counter;
}

function createGeoSyncMetrics(registry: Registry): GeoSyncMetrics {
  const registers = [registry];
  const lagBuckets = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800];
  const syncs = new Counter({ name: 'geo_sync_total', help: 'Finished blob syncs by item type and outcome', labelNames: ['type', 'outcome'] as const, registers });
  const syncLag = new Histogram({ name: 'geo_sync_lag_seconds', help: "Seconds from the primary's blob event to the synced copy on this site, by item type", labelNames: ['type'] as const, buckets: lagBuckets, registers });
  // Zero series from the start, so dashboards and rate() see every type before its first sync.
  for (const type of BLOB_TYPES) syncLag.zero({ type });
  return {
    eventsApplied: new Counter({ name: 'geo_events_applied_total', help: "Events applied from the primary's log, by kind", labelNames: ['kind'] as const, registers }),
    replicationErrors: new Counter({
      name: 'geo_replication_errors_total',
      help: "Failed steps of the secondary's replication loop (each followed by a backoff), by reason",
      labelNames: ['reason'] as const,
      registers,
    }),
    syncs,
    syncDuration: new Histogram({ name: 'geo_sync_duration_seconds', help: 'Duration of blob syncs by item type and outcome', labelNames: ['type', 'outcome'] as const, buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120], registers }),
    syncLag,
  };
}

// --- Processes of one site (src/cluster/): each worker's part of a scrape (the supervisor's own figures are in cluster/supervisor.ts).

/** Gauges every worker reads alike, or only the background worker knows: the first answer (the background worker's) stands. */
const PER_PROCESS_METRIC = /^(?:process_|nodejs_)/;

/**
 * Gauges each worker keeps for itself: admission slots add up to the site's; a store or replication
 * is only as up as the worker that saw it worst (a request worker may be the one whose upload failed).
 */
const GAUGE_AGGREGATORS: Readonly<Record<string, 'sum' | 'min'>> = {
  admission_in_flight: 'sum',
  admission_queued: 'sum',
  admission_limit: 'sum',
  geoforge_object_store_up: 'min',
  geo_sync_replication_synchronous: 'min',
};

/**
 * One worker's part of an aggregated scrape. Counters and histograms add up across workers; the
 * process and Node.js figures keep a `worker` label (one series per process); other gauges are
 * computed from the shared database or by the background worker, so they are taken once, not summed
 * (but GAUGE_AGGREGATORS).
 */
export async function workerMetricsPart(registry: Registry, worker: string): Promise<unknown> {
  const metrics = await registry.getMetricsAsJSON();
  return metrics.map((metric) => {
    if (PER_PROCESS_METRIC.test(metric.name)) return { ...metric, aggregator: 'sum', values: metric.values.map((value) => ({ ...value, labels: { ...value.labels, worker } })) };
    if (String(metric.type) === 'gauge') return { ...metric, aggregator: GAUGE_AGGREGATORS[metric.name] ?? 'first' };
    return metric;
  });
}
