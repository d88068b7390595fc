import type { Db } from '../db/connection.js';
import { logPosition } from './event-log.js';
import { allGeoNodes, readStoredNodeStatus, type GeoNodeRow } from './nodes.js';
import { ageStoredStatus, buildStatus, noBlobs, unreportedStatus, type GeoNodeStatus } from './status.js';

/** Where a node's status comes from: the serving site's live figures, or the reports nodes sent. */
export interface StatusSources {
  currentStatus(): GeoNodeStatus | null;
  storedStatus(nodeId: number): GeoNodeStatus | null;
}

/**
 * A node's status as the Geo API shows it (GITLAB-NOTES 2.7): live for the node serving the
 * request, else its last stored report, aged; null when neither exists.
 */
export function statusOfNode(node: GeoNodeRow, isCurrent: boolean, sources: StatusSources): GeoNodeStatus | null {
  return (isCurrent ? sources.currentStatus() : null) ?? sources.storedStatus(node.id);
}

/** GET /geo_nodes/status: every secondary is listed, one that never reported as such. */
export function secondaryNodeStatus(node: GeoNodeRow, isCurrent: boolean, sources: StatusSources): GeoNodeStatus {
  return statusOfNode(node, isCurrent, sources) ?? unreportedStatus(node.id);
}

/** The primary's own status, from its event log: no cursor and no lag, as a primary has none. */
export function primarySelfStatus(db: Db, nodeId: number, build: { version: string; revision: string; now: number }): GeoNodeStatus {
  const position = logPosition(db);
  return buildStatus({
    nodeId,
    lastEventId: position.lastEventId,
    lastEventAt: position.lastEventAt,
    cursorEventId: null,
    cursorEventAt: null,
    problems: [],
    blobs: noBlobs(),
    ...build,
  });
}

export interface NodeStatusLine {
  readonly node: GeoNodeRow;
  /** null for the primary when the database read is a secondary's: its live figures are on the primary. */
  readonly status: GeoNodeStatus | null;
}

/**
 * Every node's status read from a site's database without the site's process (the CLI): the
 * primary's computed from the event log when this is the primary's database, secondaries' from
 * their stored reports, aged by the same rule the API applies.
 */
export function readNodeStatuses(
  db: Db,
  options: { isPrimarySite: boolean; staleSeconds: number; version: string; revision: string; now: number },
): NodeStatusLine[] {
  const stored = (nodeId: number) => {
    const report = readStoredNodeStatus(db, nodeId);
    return report ? ageStoredStatus(report.status, report.reportedAt, options.now, options.staleSeconds) : null;
  };
  return allGeoNodes(db).map((node) => {
    if (node.primary) {
      const { version, revision, now } = options;
      return { node, status: options.isPrimarySite ? primarySelfStatus(db, node.id, { version, revision, now }) : null };
    }
    return { node, status: stored(node.id) ?? unreportedStatus(node.id) };
  });
}
