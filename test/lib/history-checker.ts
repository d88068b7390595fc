/**
 * A Jepsen-style checker of a failover history (issue 28, item 5): a pure function over the
 * operations clients recorded (invoke and complete times, outcome), the leader-key tenures seen in
 * etcd, and the keys present at the end. Keys are written once each (a unique username), so a key
 * present is its value.
 */

/** A write: 'ok' acknowledged (2xx), 'fail' surely not applied (the write gate's 503, a 4xx), 'unknown' (no answer). */
export interface WriteOp {
  readonly type: 'write';
  readonly client: string;
  /** The site the client sent it to (a secondary forwards it to its primary). */
  readonly site: string;
  readonly key: string;
  readonly invoke: number;
  readonly complete: number;
  readonly outcome: 'ok' | 'fail' | 'unknown';
  /** The primary that accepted it and the epoch it served (from the answer's headers). */
  readonly acceptedBy?: { readonly node: string; readonly epoch: number };
  /** The answer's status and message, for the record (0: none). */
  readonly answer?: string;
}

/** A read of one key: found or not ('fail': no usable answer). */
export interface ReadOp {
  readonly type: 'read';
  readonly client: string;
  readonly site: string;
  readonly key: string;
  readonly invoke: number;
  readonly complete: number;
  readonly outcome: 'ok' | 'fail';
  readonly found: boolean;
}

export type Operation = WriteOp | ReadOp;

/** A holder of the leader key as etcd showed it: first seen `from`, seen gone (or another holder) at `to`. */
export interface LeaderTenure {
  readonly node: string;
  readonly epoch: number;
  readonly from: number;
  /** null: still held at the end of the history. */
  readonly to: number | null;
}

export interface History {
  readonly operations: readonly Operation[];
  readonly tenures: readonly LeaderTenure[];
  /** The keys present on the final primary once every site settled. */
  readonly final: ReadonlySet<string>;
}

export type Rule = 'lost-write' | 'read-then-gone' | 'split-brain' | 'read-your-writes' | 'write-without-lease';

export interface Violation {
  readonly rule: Rule;
  readonly message: string;
  readonly operations: readonly Operation[];
}

export interface CheckOptions {
  /** With synchronous replication no acknowledged write may be missing at the end. */
  readonly syncReplicas: number;
  /** How late a tenure may have been seen first (the poll interval of the etcd observer). */
  readonly observationSlackMs: number;
}

export interface CheckResult {
  readonly valid: boolean;
  readonly violations: readonly Violation[];
  readonly stats: { readonly writes: number; readonly acknowledged: number; readonly reads: number; readonly epochs: number };
}

export function checkHistory(history: History, options: CheckOptions): CheckResult {
  const violations: Violation[] = [];
  const writes = history.operations.filter((op): op is WriteOp => op.type === 'write');
  const reads = history.operations.filter((op): op is ReadOp => op.type === 'read');
  const acknowledged = writes.filter((op) => op.outcome === 'ok');

  // 1. An acknowledged write missing at the end.
  if (options.syncReplicas > 0) {
    for (const write of acknowledged) {
      if (!history.final.has(write.key)) violations.push({ rule: 'lost-write', message: `acknowledged write of ${write.key} (by ${write.acceptedBy?.node ?? write.site}) is missing at the end`, operations: [write] });
    }
  }

  // 2. A value read and later gone.
  for (const read of reads) {
    if (read.outcome === 'ok' && read.found && !history.final.has(read.key)) {
      violations.push({ rule: 'read-then-gone', message: `${read.key} was read on ${read.site} at ${read.complete} and is gone at the end`, operations: [read] });
    }
  }

  // 3. Two sites accepting writes in the same epoch.
  const byEpoch = new Map<number, Map<string, WriteOp>>();
  for (const write of acknowledged) {
    if (!write.acceptedBy) continue;
    const nodes = byEpoch.get(write.acceptedBy.epoch) ?? new Map<string, WriteOp>();
    if (!nodes.has(write.acceptedBy.node)) nodes.set(write.acceptedBy.node, write);
    byEpoch.set(write.acceptedBy.epoch, nodes);
  }
  for (const [epoch, nodes] of byEpoch) {
    if (nodes.size > 1) violations.push({ rule: 'split-brain', message: `epoch ${epoch}: writes accepted by ${[...nodes.keys()].join(' and ')}`, operations: [...nodes.values()] });
  }

  // 4. Read-your-writes: a read on a site missing the same client's write acknowledged through that site before the read began.
  for (const read of reads) {
    if (read.outcome !== 'ok' || read.found) continue;
    const mine = acknowledged.find((write) => write.client === read.client && write.site === read.site && write.key === read.key && write.complete < read.invoke);
    if (mine) violations.push({ rule: 'read-your-writes', message: `${read.client} read ${read.key} on ${read.site} after its write there was acknowledged, and did not find it`, operations: [mine, read] });
  }

  // 5. A write accepted by a site without the leader key: no tenure of that site and epoch covers it.
  for (const write of acknowledged) {
    if (!write.acceptedBy) continue;
    const { node, epoch } = write.acceptedBy;
    const covered = history.tenures.some(
      (tenure) => tenure.node === node && tenure.epoch === epoch && tenure.from - options.observationSlackMs <= write.complete && (tenure.to === null || write.invoke < tenure.to),
    );
    if (!covered) violations.push({ rule: 'write-without-lease', message: `${write.key} accepted by ${node} at epoch ${epoch} while it held no leader key`, operations: [write] });
  }

  return {
    valid: violations.length === 0,
    violations,
    stats: { writes: writes.length, acknowledged: acknowledged.length, reads: reads.length, epochs: byEpoch.size },
  };
}
