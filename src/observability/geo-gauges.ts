import { Counter, Gauge, type Registry } from 'prom-client';
import { firstEventAtAfter } from '../geo/event-log.js';
import { allGeoNodes } from '../geo/nodes.js';
import { secondaryNodeStatus, statusOfNode, type StatusSources } from '../geo/node-statuses.js';
import { BLOB_KINDS, VERIFIED_KINDS, type GeoNodeStatus } from '../geo/status.js';
import type { SiteContext } from '../site-context.js';

/** One node as this site's gauges show it. */
export interface NodeFigures {
  readonly name: string;
  readonly url: string;
  readonly status: GeoNodeStatus;
  /** Age of the oldest event the node has not applied; null for the primary (it has no cursor) or when unknown. */
  readonly cursorLagSeconds: number | null;
  /** This look at the node found no fresh status (never reported, or the report is stale). */
  readonly statusCheckFailed: boolean;
}

export interface GeoStatusMetrics {
  /** Counts a status check of `node` that failed: on a secondary, a status report the primary did not take. */
  countFailedStatusCheck(node: { name: string; url: string }): void;
  /** Connects the figures once the Geo runtime exists (it is built after the site's metrics). */
  observe(figures: () => NodeFigures[]): void;
}

type Labels = 'name' | 'url';

/** GitLab's gauge name, the GeoNodeStatus field it shows, and its help text. */
const STATUS_GAUGES: readonly (readonly [string, string, string])[] = [
  ...BLOB_KINDS.flatMap((kind) => {
    const what = kind.replace('_', ' ');
    return [
      [`geo_${kind}`, `${kind}_count`, `Total number of ${what} available on the primary`],
      [`geo_${kind}_synced`, `${kind}_synced_count`, `Number of ${what} synced on the secondary`],
      [`geo_${kind}_failed`, `${kind}_failed_count`, `Number of ${what} that failed to sync on the secondary`],
    ] as const;
  }),
  // GitLab also has geo_<kind>_checksum_total and _verification_total gauges: a gauge named *_total breaks Prometheus'
  // naming rules (promtool), and both are sums of the others (checksummed + checksum_failed; synced), so they stay status fields.
  ...VERIFIED_KINDS.flatMap((kind) => {
    const what = kind.replace(/_/g, ' ');
    return [
      [`geo_${kind}_checksummed`, `${kind}_checksummed_count`, `Number of ${what} checksummed on the primary`],
      [`geo_${kind}_checksum_failed`, `${kind}_checksum_failed_count`, `Number of ${what} whose checksum failed on the primary`],
      [`geo_${kind}_registry`, `${kind}_registry_count`, `Number of ${what} in the registry of the secondary`],
      [`geo_${kind}_verified`, `${kind}_verified_count`, `Number of ${what} verified on the secondary`],
      [`geo_${kind}_verification_failed`, `${kind}_verification_failed_count`, `Number of ${what} whose verification failed on the secondary`],
    ] as const;
  }),
  ['geo_db_replication_lag_seconds', 'db_replication_lag_seconds', "Seconds between the primary's newest event and the secondary's cursor"],
  ['geo_last_event_id', 'last_event_id', "The primary's newest event id, as last seen by the node"],
  ['geo_last_event_timestamp', 'last_event_timestamp', "Unix time of the primary's newest event, as last seen by the node"],
  ['geo_cursor_last_event_id', 'cursor_last_event_id', 'Id of the last event the secondary applied'],
  ['geo_cursor_last_event_timestamp', 'cursor_last_event_timestamp', 'Unix time of the last event the secondary applied'],
  ['geo_last_successful_status_check_timestamp', 'last_successful_status_check_timestamp', 'Unix time of the last successful status check of the node'],
];

/**
 * The geo_* gauges of GitLab, labelled `name` and `url`, plus geo_cursor_lag_seconds. Values are
 * read at scrape time from the same GeoNodeStatus objects /geo_nodes/status serves; every scrape
 * resets the label sets first, so a deleted node disappears.
 */
export function createGeoStatusMetrics(registry: Registry): GeoStatusMetrics {
  let figures: () => NodeFigures[] = () => [];
  // Every metric's collect runs in the same tick of one scrape: the figures are read once per scrape.
  let scraped: NodeFigures[] | null = null;
  const failedChecks = new Map<string, number>();
  const current = (): NodeFigures[] => {
    if (scraped) return scraped;
    scraped = figures();
    queueMicrotask(() => (scraped = null));
    for (const node of scraped) if (node.statusCheckFailed) failedChecks.set(node.name, (failedChecks.get(node.name) ?? 0) + 1);
    return scraped;
  };
  const registers = [registry];
  const labelNames = ['name', 'url'] as const;
  for (const [name, field, help] of STATUS_GAUGES) {
    new Gauge<Labels>({
      name,
      help,
      labelNames,
      registers,
      collect() {
        this.reset();
        for (const node of current()) {
          const value = node.status[field];
          if (typeof value === 'number') this.set({ name: node.name, url: node.url }, value);
        }
      },
    });
  }
  new Gauge<Labels>({
    name: 'geo_node_healthy',
    help: "1 while the node's status says healthy, 0 while unhealthy (the reason is the health field of /geo_nodes/status)",
    labelNames,
    registers,
    collect() {
      this.reset();
      for (const node of current()) this.set({ name: node.name, url: node.url }, node.status.healthy ? 1 : 0);
    },
  });
  new Gauge<Labels>({
    name: 'geo_cursor_lag_seconds',
    help: 'Age in seconds of the oldest event the secondary has not applied yet; 0 when caught up',
    labelNames,
    registers,
    collect() {
      this.reset();
      for (const node of current()) if (node.cursorLagSeconds !== null) this.set({ name: node.name, url: node.url }, node.cursorLagSeconds);
    },
  });
  new Counter<Labels>({
    name: 'geo_status_failed_total',
    help: "Failed status checks of the node: on the primary, each look (scrape) finding the node's report missing or stale; on a secondary, each report the primary did not take",
    labelNames,
    registers,
    collect() {
      this.reset();
      const nodes = current();
      for (const name of failedChecks.keys()) if (!nodes.some((node) => node.name === name)) failedChecks.delete(name);
      for (const node of nodes) this.inc({ name: node.name, url: node.url }, failedChecks.get(node.name) ?? 0);
    },
  });
  return {
    countFailedStatusCheck: (node) => failedChecks.set(node.name, (failedChecks.get(node.name) ?? 0) + 1),
    observe: (source) => {
      figures = source;
    },
  };
}

/**
 * What the gauges show on this site: on the primary every node (itself live, each secondary from
 * its stored report, aged), on a secondary itself. Cheap: the statuses come from indexed counts
 * and stored reports, and the cursor lag from one primary-key lookup per secondary.
 */
export function geoNodeFigures(ctx: SiteContext, sources: StatusSources): () => NodeFigures[] {
  const staleSeconds = ctx.config.geo.statusStaleSeconds;
  const checkFailed = (status: GeoNodeStatus, now: number) =>
    status.last_successful_status_check_timestamp === null || now / 1000 - status.last_successful_status_check_timestamp > staleSeconds;
  if (ctx.config.role === 'primary') {
    return () => {
      const now = Date.now();
      return allGeoNodes(ctx.db).flatMap((node) => {
        const isSelf = node.name === ctx.nodeName;
        const status = isSelf ? statusOfNode(node, true, sources) : secondaryNodeStatus(node, false, sources);
        if (!status) return [];
        const cursor = status.cursor_last_event_id;
        // The primary knows its own log: the age of the first event after the node's reported cursor.
        const firstUnapplied = node.primary || cursor === null ? null : firstEventAtAfter(ctx.db, cursor);
        const cursorLagSeconds = node.primary || cursor === null ? null : firstUnapplied === null ? 0 : Math.max(0, (now - firstUnapplied) / 1000);
        return [{ name: node.name, url: node.url, status, cursorLagSeconds, statusCheckFailed: !isSelf && checkFailed(status, now) }];
      });
    };
  }
  // The primary appends a heartbeat when idle for heartbeatSeconds, checked every heartbeatSeconds,
  // plus a second of timestamp rounding: a cursor event older than that means unseen events exist.
  const heartbeatAllowanceMs = (2 * ctx.config.geo.heartbeatSeconds + 1) * 1000;
  return () => {
    const status = sources.currentStatus();
    if (!status) return [];
    return [{ name: ctx.nodeName, url: ctx.externalUrl, status, cursorLagSeconds: ownCursorLag(status, Date.now(), heartbeatAllowanceMs), statusCheckFailed: false }];
  };
}

/**
 * A secondary's own cursor lag. Known to be behind: the oldest unapplied event came right after
 * the cursor's, so its age is the cursor event's (exact up to the gap between two events, which
 * is small in a backlog). Not known to be behind: 0, unless the cursor event is older than the
 * primary's heartbeat allows, which means events exist that this site has not even seen.
 */
function ownCursorLag(status: GeoNodeStatus, now: number, heartbeatAllowanceMs: number): number | null {
  const { cursor_last_event_id: cursor, cursor_last_event_timestamp: cursorAt, last_event_id: last } = status;
  if (cursor === null || cursorAt === null) return null;
  const age = now - cursorAt * 1000;
  if (last !== null && cursor < last) return Math.max(0, age / 1000);
  return Math.max(0, (age - heartbeatAllowanceMs) / 1000);
}
