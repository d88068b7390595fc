export const BLOB_KINDS = ['attachments', 'lfs_objects', 'job_artifacts', 'repositories', 'wikis', 'snippet_repositories', 'group_wiki_repositories'] as const;
export type BlobKind = (typeof BLOB_KINDS)[number];

export interface BlobCounts {
  readonly count: number;
  readonly synced: number;
  readonly failed: number;
}

/**
 * The kinds GitLab 17 reports with its self-service framework's checksum and verification
 * figures (GeoNodeStatus: `<kind>_checksummed_count`, `<kind>_verified_count`, ...).
 */
export const VERIFIED_KINDS = ['group_wiki_repositories'] as const satisfies readonly BlobKind[];
export type VerifiedKind = (typeof VERIFIED_KINDS)[number];

/** A verified kind's figures: the primary's checksums as replicated, and this site's registry and verification. */
export interface VerificationCounts {
  /** The primary's items whose checksum was computed, and those whose checksum failed. */
  readonly checksummed: number;
  readonly checksumFailed: number;
  /** Registry rows (not being deleted); of them, the synced ones (what verification covers), those verified, those whose verification failed. */
  readonly registry: number;
  readonly verificationTotal: number;
  readonly verified: number;
  readonly verificationFailed: number;
}

/** The GeoNodeStatus fields of a verified kind, named as GitLab 17 names them. */
export function verificationFields(kind: VerifiedKind, counts: BlobCounts, figures: VerificationCounts): Record<string, number | string> {
  return {
    [`${kind}_checksum_total_count`]: figures.checksummed + figures.checksumFailed,
    [`${kind}_checksummed_count`]: figures.checksummed,
    [`${kind}_checksum_failed_count`]: figures.checksumFailed,
    [`${kind}_registry_count`]: figures.registry,
    [`${kind}_verification_total_count`]: figures.verificationTotal,
    [`${kind}_verified_count`]: figures.verified,
    [`${kind}_verification_failed_count`]: figures.verificationFailed,
    [`${kind}_verified_in_percentage`]: syncedPercentage({ ...counts, synced: figures.verified }),
  };
}

const NO_VERIFICATION: VerificationCounts = { checksummed: 0, checksumFailed: 0, registry: 0, verificationTotal: 0, verified: 0, verificationFailed: 0 };

/** GeoNodeStatus as the SPEC names its fields; computed once, read by the API, the CLI and metrics. */
export interface GeoNodeStatus {
  geo_node_id: number;
  healthy: boolean;
  health: string;
  health_status: 'Healthy' | 'Unhealthy';
  missing_oauth_application: boolean;
  db_replication_lag_seconds: number | null;
  last_event_id: number | null;
  last_event_timestamp: number | null;
  cursor_last_event_id: number | null;
  cursor_last_event_timestamp: number | null;
  last_successful_status_check_timestamp: number | null;
  /** null only for a node that never reported (SPEC: absent values are null). */
  version: string | null;
  revision: string | null;
  /** Counters per blob kind, and the failover fields (geo/failover-status.ts: epoch, role history, synchronous replication). */
  [field: string]: string | number | boolean | null | object;
}

/** `97.56%`, GitLab's format; an empty set counts as 0.00%. */
export function syncedPercentage(counts: BlobCounts): string {
  return `${counts.count ? ((counts.synced / counts.count) * 100).toFixed(2) : '0.00'}%`;
}

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

export interface StatusInput {
  nodeId: number;
  /** The primary's newest event, as last seen (a primary passes its own). */
  lastEventId: number | null;
  lastEventAt: number | null;
  /** This site's cursor; null on a primary. */
  cursorEventId: number | null;
  cursorEventAt: number | null;
  /** Problems that make the node unhealthy, in words; empty when healthy. */
  problems: string[];
  blobs: Record<BlobKind, BlobCounts>;
  /** The verified kinds' figures; absent (zeros) where the node reports none (a primary, a node that never reported). */
  verification?: Record<VerifiedKind, VerificationCounts>;
  version: string | null;
  revision: string | null;
  /** When the status was computed; null when it never was (a node that never reported). */
  now: number | null;
}

/**
 * Builds the status. Lag is the age of the newest event the cursor has not reached: zero when
 * caught up, growing with the primary's heartbeats when stuck; null on a primary.
 */
export function buildStatus(input: StatusInput): GeoNodeStatus {
  const behind = input.cursorEventId !== null && input.lastEventId !== null && input.cursorEventId < input.lastEventId;
  const lagMs = input.cursorEventId === null ? null : behind && input.lastEventAt !== null && input.cursorEventAt !== null ? input.lastEventAt - input.cursorEventAt : 0;
  const status: GeoNodeStatus = {
    geo_node_id: input.nodeId,
    healthy: input.problems.length === 0,
    health: input.problems.length ? input.problems.join('; ') : 'Healthy',
    health_status: input.problems.length ? 'Unhealthy' : 'Healthy',
    missing_oauth_application: false,
    db_replication_lag_seconds: lagMs === null ? null : Math.max(0, Math.round(lagMs / 1000)),
    last_event_id: input.lastEventId,
    last_event_timestamp: seconds(input.lastEventAt),
    cursor_last_event_id: input.cursorEventId,
    cursor_last_event_timestamp: seconds(input.cursorEventAt),
    last_successful_status_check_timestamp: seconds(input.now),
    version: input.version,
    revision: input.revision,
  };
  for (const kind of BLOB_KINDS) {
    const counts = input.blobs[kind];
    status[`${kind}_count`] = counts.count;
    status[`${kind}_synced_count`] = counts.synced;
    status[`${kind}_failed_count`] = counts.failed;
    status[`${kind}_synced_in_percentage`] = syncedPercentage(counts);
  }
  for (const kind of VERIFIED_KINDS) Object.assign(status, verificationFields(kind, input.blobs[kind], input.verification?.[kind] ?? NO_VERIFICATION));
  return status;
}

/**
 * A status some node reported earlier, as the primary serves it: a report older than
 * `staleSeconds` makes the node unhealthy with a text that says why.
 */
export function ageStoredStatus(stored: GeoNodeStatus, reportedAt: number, now: number, staleSeconds: number): GeoNodeStatus {
  const age = Math.floor((now - reportedAt) / 1000);
  const status = { ...stored, last_successful_status_check_timestamp: Math.floor(reportedAt / 1000) };
  if (age <= staleSeconds) return status;
  const problem = `Status check timed out: no report for ${age} seconds (limit ${staleSeconds})`;
  return { ...status, healthy: false, health_status: 'Unhealthy', health: stored.healthy ? problem : `${problem}; ${stored.health}` };
}

const NO_REPORT_YET = 'No status report received from this node yet';

/**
 * What GET /geo_nodes/status lists for a secondary that never reported: unhealthy with a text
 * that says so, counters at zero, and null where only a report could tell (times, ids, version).
 */
export function unreportedStatus(nodeId: number): GeoNodeStatus {
  return buildStatus({
    nodeId,
    lastEventId: null,
    lastEventAt: null,
    cursorEventId: null,
    cursorEventAt: null,
    problems: [NO_REPORT_YET],
    blobs: noBlobs(),
    version: null,
    revision: null,
    now: null,
  });
}

/** Per-kind blob counts at zero: for a node that reports none (never reported, or a primary, which replicates nothing). */
export function noBlobs(): Record<BlobKind, BlobCounts> {
  return Object.fromEntries(BLOB_KINDS.map((kind) => [kind, { count: 0, synced: 0, failed: 0 }])) as Record<BlobKind, BlobCounts>;
}
