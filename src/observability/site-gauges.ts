import { statfsSync } from 'node:fs';
import { Gauge, type Registry } from 'prom-client';
import { prepare, type Db } from '../db/connection.js';

/** What the gauges read at scrape time; accessors, so a site whose database or role changes while it runs is read as it is then. */
export interface SiteGaugeSource {
  readonly dataDir: string;
  db(): Db;
  isPrimary(): boolean;
}

/**
 * Gauges about the site itself, read at scrape time: free space under the data directory (the
 * disk alert needs no node_exporter) and, on a primary, the event log's size and oldest event
 * (a secondary that stops advancing pins the log until retention drops its events).
 */
export function registerSiteGauges(registry: Registry, source: SiteGaugeSource): void {
  const registers = [registry];
  const disk = () => {
    const stats = statfsSync(source.dataDir);
    return { available: stats.bavail * stats.bsize, capacity: stats.blocks * stats.bsize };
  };
  new Gauge({
    name: 'geoforge_data_dir_available_bytes',
    help: 'Bytes available to the site on the filesystem of its data directory',
    registers,
    collect() {
      this.set(disk().available);
    },
  });
  new Gauge({
    name: 'geoforge_data_dir_capacity_bytes',
    help: 'Size in bytes of the filesystem of the data directory',
    registers,
    collect() {
      this.set(disk().capacity);
    },
  });
  new Gauge({
    name: 'geo_event_log_events',
    help: "Events kept in the primary's event log (pruned once every secondary applied them, or by retention)",
    registers,
    collect() {
      this.reset();
      if (!source.isPrimary()) return;
      // Pruning deletes from the oldest end, so the id range is the count without scanning the log.
      this.set(prepare(source.db(), 'SELECT coalesce(max(id) - min(id) + 1, 0) FROM geo_event_log').pluck().get() as number);
    },
  });
  new Gauge({
    name: 'geo_event_log_oldest_event_timestamp',
    help: "Unix time of the oldest event kept in the primary's event log; absent when the log is empty",
    registers,
    collect() {
      this.reset();
      if (!source.isPrimary()) return;
      const oldest = prepare(source.db(), 'SELECT created_at FROM geo_event_log ORDER BY id LIMIT 1').pluck().get() as number | undefined;
      if (oldest !== undefined) this.set(oldest / 1000);
    },
  });
}
