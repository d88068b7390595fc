import type { CoordinatorStatus } from '../cluster/etcd/coordinator.js';
import type { Config } from '../config.js';
import type { Db } from '../db/connection.js';
import { readCursor } from '../geo/agent/applier.js';
import { formatFailover, siteFailover, type SiteFailover } from '../geo/failover-report.js';
import { callLocalSite, localSite } from '../geo/local-command.js';
import { formatNodeStatusTable } from '../geo/node-reports.js';
import { readNodeStatuses, type NodeStatusLine } from '../geo/node-statuses.js';
import { allGeoNodes, findGeoNodeByName, readStoredNodeStatus } from '../geo/nodes.js';
import { promotionHistory } from '../geo/promote.js';
import { oldestFailure } from '../geo/registry/resync.js';
import type { RoleState } from '../geo/role-state.js';
import { ageStoredStatus, BLOB_KINDS, type GeoNodeStatus } from '../geo/status.js';
import { colours } from './terminal.js';

/** The types in the order the screen lists them, each with its status-field prefix. */
const TYPES = [
  ['repositories', 'repositories'],
  ['wikis', 'wikis'],
  ['lfs_objects', 'lfs_objects'],
  ['uploads', 'attachments'],
  ['job_artifacts', 'job_artifacts'],
  ['snippet_repositories', 'snippet_repositories'],
  ['group_wiki_repositories', 'group_wiki_repositories'],
] as const satisfies ReadonlyArray<readonly [string, (typeof BLOB_KINDS)[number]]>;

/** `geoforge geo status`: everything the screen shows, and exactly what `--json` prints. */
export interface GeoStatusScreen {
  site: {
    name: string;
    url: string;
    role: Config['role'];
    /** 'live': the running site answered; 'database': read from the data directory (no Geo secret to ask it, or it did not answer). */
    source: 'live' | 'database';
    /** Why the running site was not asked or did not answer; null when it answered. */
    site_error: string | null;
    healthy: boolean;
    health: string;
    epoch: number;
    fenced: boolean;
    lag: { events: number | null; seconds: number | null; last_event_id: number | null; cursor_last_event_id: number | null };
    types: Array<{ type: string; synced: number; failed: number; total: number; synced_percentage: string }>;
    oldest_failure: { type: string; item_id: number; failure_type: string | null; reason: string | null; retry_count: number; failed_at: string | null; retry_at: string | null } | null;
    /** This secondary's last status report as the primary stored it (null on a primary, which reports to no one). */
    last_status_report: { at: string | null; age_seconds: number | null } | null;
    sync_replication: { replicas: number; timeout_ms: number; state: unknown };
    /** Automatic failover through etcd (geoCoordinator): the coordinator's last word; null without one. */
    coordinator: CoordinatorStatus | null;
  };
  nodes: Array<{ node: { id: number; name: string; url: string; primary: boolean; enabled: boolean }; status: GeoNodeStatus | null }>;
  failover: SiteFailover;
}

const iso = (ms: number | null) => (ms === null ? null : `${new Date(ms).toISOString().slice(0, 19)}Z`);

export interface StatusInputs {
  config: Config;
  persisted: RoleState | null;
  version: string;
  revision: string;
  url?: string;
}

/** Asks the running site for its live status when the CLI can sign the call; the reason when it cannot. */
async function liveStatus(inputs: StatusInputs): Promise<{ status: GeoNodeStatus | null; error: string | null }> {
  if (!inputs.config.geoSecret) return { status: null, error: 'GEOFORGE_GEO_SECRET is not set, so the running site was not asked' };
  try {
    const answer = await callLocalSite(inputs.config, 'GET', 'status', undefined, inputs.url);
    if (answer.status !== 200) return { status: null, error: `the site answered ${answer.status}: ${String(answer.body.message ?? JSON.stringify(answer.body))}` };
    if (!answer.body.status) return { status: null, error: 'the site does not know its own node yet (starting, or not registered)' };
    return { status: answer.body.status as GeoNodeStatus, error: null };
  } catch (error) {
    return { status: null, error: (error as Error).message };
  }
}

/** Builds the screen: the live status of the site when it answers, else what its database says; the rest from the database, in one read. */
export async function buildGeoStatus(inputs: StatusInputs, read: <T>(fn: (db: Db) => T) => T): Promise<GeoStatusScreen> {
  const { config } = inputs;
  const live = await liveStatus(inputs);
  const site = localSite(config, inputs.url);
  const now = Date.now();
  const fromDb = read((db) => {
    // A primary's node is the one primary row, whatever name the CLI's configuration gives it.
    const own = findGeoNodeByName(db, site.node) ?? (config.role === 'primary' ? allGeoNodes(db).find((node) => node.primary === 1) : undefined);
    const stored = own ? readStoredNodeStatus(db, own.id) : undefined;
    return {
      own,
      stored,
      lines: readNodeStatuses(db, { isPrimarySite: config.role === 'primary', staleSeconds: config.geo.statusStaleSeconds, version: inputs.version, revision: inputs.revision, now }),
      history: promotionHistory(db),
      failure: config.role === 'secondary' ? oldestFailure(db) : null,
      cursor: config.role === 'secondary' ? readCursor(db) : null,
    };
  });
  const failover = siteFailover(config, inputs.persisted, fromDb.history);
  const ownLine = fromDb.lines.find((line) => line.node.id === fromDb.own?.id);
  // Without the running site: a primary's status computed from its event log, a secondary's last report, aged.
  const recorded: GeoNodeStatus | null =
    config.role === 'primary'
      ? (ownLine?.status ?? null)
      : fromDb.stored
        ? ageStoredStatus(fromDb.stored.status, fromDb.stored.reportedAt, now, config.geo.statusStaleSeconds)
        : null;
  const status = live.status ?? recorded;
  const problems: string[] = [];
  // Asked and silent is unhealthy: a check must fail for a site that is down.
  if (!live.status && config.geoSecret) problems.push(`The site at ${site.url} did not answer: ${live.error}`);
  if (!status) problems.push(fromDb.own ? 'No status report from this node yet' : `This site (${site.node}) is not among the Geo nodes yet`);
  if (status && !status.healthy) problems.push(status.health);
  const lastEventId = status?.last_event_id ?? null;
  const cursorId = config.role === 'secondary' ? (status?.cursor_last_event_id ?? fromDb.cursor?.lastEventId ?? null) : null;
  return {
    site: {
      name: fromDb.own?.name ?? site.node,
      url: site.url,
      role: config.role,
      source: live.status ? 'live' : 'database',
      site_error: live.error,
      healthy: problems.length === 0,
      health: problems.length ? problems.join('; ') : 'Healthy',
      epoch: typeof status?.epoch === 'number' ? status.epoch : failover.epoch,
      fenced: typeof status?.fenced === 'boolean' ? status.fenced : failover.fenced,
      lag: {
        events: cursorId !== null && lastEventId !== null ? Math.max(0, lastEventId - cursorId) : null,
        seconds: status?.db_replication_lag_seconds ?? null,
        last_event_id: lastEventId,
        cursor_last_event_id: cursorId,
      },
      types: TYPES.map(([type, kind]) => {
        const total = Number(status?.[`${kind}_count`] ?? 0);
        return {
          type,
          synced: Number(status?.[`${kind}_synced_count`] ?? 0),
          failed: Number(status?.[`${kind}_failed_count`] ?? 0),
          total,
          synced_percentage: String(status?.[`${kind}_synced_in_percentage`] ?? '0.00%'),
        };
      }),
      oldest_failure: fromDb.failure && { ...fromDb.failure, failed_at: iso(fromDb.failure.failed_at), retry_at: iso(fromDb.failure.retry_at) },
      last_status_report:
        config.role === 'secondary' ? { at: iso(fromDb.stored?.reportedAt ?? null), age_seconds: fromDb.stored ? Math.max(0, Math.floor((now - fromDb.stored.reportedAt) / 1000)) : null } : null,
      sync_replication: { replicas: config.geo.syncReplicas, timeout_ms: config.geo.syncTimeoutMs, state: status?.sync_replication ?? null },
      coordinator: config.geoCoordinator ? ((status as { coordinator?: CoordinatorStatus } | null)?.coordinator ?? null) : null,
    },
    nodes: fromDb.lines.map(({ node, status: nodeStatus }) => ({
      node: { id: node.id, name: node.name, url: node.url, primary: node.primary === 1, enabled: node.enabled === 1 },
      status: node.id === fromDb.own?.id && status ? status : nodeStatus,
    })),
    failover,
  };
}

/** The screen: this site's answers first, then every node's line, then failover. */
export function formatGeoStatus(screen: GeoStatusScreen, paint = colours()): string {
  const s = screen.site;
  const dash = (value: unknown) => (value === null || value === undefined ? '-' : String(value));
  const rows: Array<[string, string]> = [
    ['Health', s.healthy ? paint.green('Healthy') : paint.red(`Unhealthy: ${s.health}`)],
    ['Role', `${s.role}, fencing epoch ${s.epoch}${s.fenced ? paint.red(' FENCED') : ''}`],
    ['Source', s.source === 'live' ? 'live (the running site)' : `database (${dash(s.site_error)})`],
  ];
  if (s.role === 'secondary') {
    const lagText = `${dash(s.lag.events)} event(s) behind (cursor ${dash(s.lag.cursor_last_event_id)} of ${dash(s.lag.last_event_id)}), ${dash(s.lag.seconds)} s`;
    rows.push(['Lag', s.lag.seconds !== null && s.lag.seconds > 0 ? paint.yellow(lagText) : lagText]);
    const report = s.last_status_report;
    rows.push(['Last status report', report?.at ? `${report.age_seconds} s ago (${report.at})` : 'never']);
  } else {
    rows.push(['Lag', `none (a primary); last event ${dash(s.lag.last_event_id)}`]);
  }
  rows.push([
    'Sync replication',
    s.sync_replication.replicas === 0
      ? 'off (geoSyncReplicas 0)'
      : `${s.sync_replication.replicas} secondar${s.sync_replication.replicas === 1 ? 'y' : 'ies'}, timeout ${s.sync_replication.timeout_ms} ms${s.sync_replication.state ? `, ${JSON.stringify(s.sync_replication.state)}` : ''}`,
  ]);
  if (s.coordinator) {
    const c = s.coordinator;
    const leader = c.leader ? `${c.leader.node} (epoch ${c.leader.epoch})` : paint.red('none');
    rows.push(['Automatic failover', `${c.paused ? paint.yellow('PAUSED') : 'active'}; leader ${leader}${c.holds_leader_key ? ', held by this site' : ''}; ${c.eligible ? 'eligible; ' : ''}${c.decision}`]);
  }
  const f = s.oldest_failure;
  rows.push(['Oldest failure', f ? paint.red(`${f.type} ${f.item_id} (${dash(f.failure_type)}, ${f.retry_count} retries, last tried ${dash(f.failed_at)}, next ${dash(f.retry_at)}): ${dash(f.reason)}`) : 'none']);
  const width = Math.max(...rows.map(([title]) => title.length)) + 1;
  const head = paint.bold(`geoforge geo status: ${s.name} (${s.url})`);
  const types = [
    `  ${'type'.padEnd(14)}${'synced'.padStart(8)}${'failed'.padStart(8)}${'total'.padStart(8)}${'synced %'.padStart(10)}`,
    ...s.types.map((t) => {
      const line = `  ${t.type.padEnd(14)}${String(t.synced).padStart(8)}${String(t.failed).padStart(8)}${String(t.total).padStart(8)}${t.synced_percentage.padStart(10)}`;
      return t.failed > 0 ? paint.red(line) : t.synced < t.total ? paint.yellow(line) : line;
    }),
  ];
  const lines: NodeStatusLine[] = screen.nodes.map(({ node, status }) => ({
    node: { id: node.id, name: node.name, url: node.url, primary: node.primary ? 1 : 0, enabled: node.enabled ? 1 : 0 } as NodeStatusLine['node'],
    status,
  }));
  return [head, ...rows.map(([title, value]) => `${`${title}:`.padEnd(width)} ${value}`), ...(s.role === 'secondary' ? types : []), '', formatNodeStatusTable(lines), formatFailover(screen.failover)].join('\n');
}
