import type { Db } from '../db/connection.js';
import type { Fence } from './fence.js';
import { promotionHistory } from './promote.js';
import type { GeoNodeStatus } from './status.js';
import type { SyncReplicationState } from './sync-replication.js';

/**
 * The failover side of a node's status (issue 18, item 6): the fencing epoch, whether a primary is
 * fenced, the role history (every promotion, from the replicated database) and, on a primary, the
 * synchronous-replication state. A fenced or degraded primary is unhealthy, with a text saying why.
 */
export function withFailover(status: GeoNodeStatus, db: Db | null, fence: Fence, sync: { state: SyncReplicationState; problem: string | null } | null): GeoNodeStatus {
  const problems: string[] = [];
  if (fence.fenced()) problems.push(`Fenced: ${fence.epochPrimaryUrl} is the primary since epoch ${fence.epoch}; this site refuses writes until it is demoted`);
  if (sync?.problem) problems.push(sync.problem);
  const history = db
    ? promotionHistory(db).map((row) => ({
        epoch: row.epoch,
        node: row.node_name,
        url: row.node_url,
        previous_primary_url: row.previous_primary_url,
        promoted_by: row.promoted_by,
        forced: row.forced === 1,
        from_event_id: row.from_event_id,
        missing_events: row.missing_events,
        promoted_at: row.created_at,
      }))
    : [];
  const unhealthy = problems.length > 0;
  return {
    ...status,
    ...(unhealthy && {
      healthy: false,
      health_status: 'Unhealthy' as const,
      health: status.healthy ? problems.join('; ') : `${status.health}; ${problems.join('; ')}`,
    }),
    epoch: fence.epoch,
    fenced: fence.fenced(),
    role_history: history,
    sync_replication: sync?.state ?? null,
    // Automatic failover (geoCoordinator): the leader, this site's eligibility and its coordinator's last decision.
    ...(fence.coordinator && { coordinator: fence.coordinator }),
  };
}
