import type { Config } from '../config.js';
import type { PromotionRow } from './promote.js';
import type { RoleState } from './role-state.js';

/** What `geoforge geo status` shows of failover for the site whose data directory it reads (issue 18, item 6). */
export interface SiteFailover {
  readonly role: Config['role'];
  /** 'persisted' when a promotion, demotion or follow recorded it in the data directory, else 'configured'. */
  readonly role_source: 'persisted' | 'configured';
  readonly epoch: number;
  readonly fenced: boolean;
  readonly epoch_primary_url: string | null;
  readonly sync_replicas: number;
  readonly sync_timeout_ms: number;
  readonly role_history: Array<{ epoch: number; node: string; url: string; previous_primary_url: string | null; promoted_by: string; forced: boolean; from_event_id: number; promoted_at: string }>;
}

export function siteFailover(config: Config, persisted: RoleState | null, history: readonly PromotionRow[]): SiteFailover {
  return {
    role: config.role,
    role_source: persisted ? 'persisted' : 'configured',
    epoch: persisted?.epoch ?? 0,
    fenced: persisted !== null && persisted.role === 'primary' && persisted.epoch > persisted.ownEpoch,
    epoch_primary_url: persisted?.epochPrimaryUrl ?? null,
    sync_replicas: config.geo.syncReplicas,
    sync_timeout_ms: config.geo.syncTimeoutMs,
    role_history: history.map((row) => ({
      epoch: row.epoch,
      node: row.node_name,
      url: row.node_url,
      previous_primary_url: row.previous_primary_url,
      promoted_by: row.promoted_by,
      forced: row.forced === 1,
      from_event_id: row.from_event_id,
      promoted_at: row.created_at,
    })),
  };
}

/** The lines below the node table. */
export function formatFailover(site: SiteFailover): string {
  const lines = [
    '',
    `This site: ${site.role} (${site.role_source}), fencing epoch ${site.epoch}${site.fenced ? `, FENCED: ${site.epoch_primary_url} is the primary` : ''}`,
    `Synchronous replication: ${site.sync_replicas === 0 ? 'off (geoSyncReplicas 0)' : `${site.sync_replicas} secondar${site.sync_replicas === 1 ? 'y' : 'ies'}, timeout ${site.sync_timeout_ms} ms`}`,
    site.role_history.length ? 'Promotions:' : 'Promotions: none (the first primary still is)',
    ...site.role_history.map(
      (row) =>
        `  epoch ${row.epoch}: ${row.node} (${row.url}) at ${row.promoted_at} by ${row.promoted_by}${row.forced ? ', forced' : ''}, from event ${row.from_event_id} of ${row.previous_primary_url ?? '-'}`,
    ),
  ];
  return lines.join('\n');
}
