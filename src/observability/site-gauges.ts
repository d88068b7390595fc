import { statfsSync } from 'node:fs';
import { Gauge } from 'prom-client';
import { prepare } from '../db/connection.js';
import type { SiteContext } from '../site-context.js';

/**
 * Gauges about the site itself, read at scrape time: free space under the data directory (the
 * disk alert needs no node_exporter) and, on a primary, the event log's size and oldest event
 * (a secondary that stops advancing pins the log until retention drops its events).
 */
export function registerSiteGauges(ctx: SiteContext): void {
  const registers = [ctx.metrics.registry];
  const disk = () => {
    const stats = statfsSync(ctx.config.dataDir);
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
  if (ctx.config.role !== 'primary') return;
  new Gauge({
    name: 'geo_event_log_events',
    help: "Events kept in the primary's event log (pruned once every secondary applied them, or by retention)",
    registers,
    collect() {
      // Pruning deletes from the oldest end, so the id range is the count without scanning the log.
      this.set(prepare(ctx.db, 'SELECT coalesce(max(id) - min(id) + 1, 0) FROM geo_event_log').pluck().get() as number);
    },
  });
  new Gauge({
    name: 'geo_event_log_oldest_event_timestamp',
    help: "Unix time of the oldest event kept in the primary's event log; absent when the log is empty",
    registers,
    collect() {
      this.reset();
      const oldest = prepare(ctx.db, 'SELECT created_at FROM geo_event_log ORDER BY id LIMIT 1').pluck().get() as number | undefined;
      if (oldest !== undefined) this.set(oldest / 1000);
    },
  });
}
