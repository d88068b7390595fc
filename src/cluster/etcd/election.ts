import type { SyncReplicationState } from '../../geo/sync-replication.js';

/** What a site says of itself to its coordinator (GET /api/v4/geo/local/coordinator-state), published in etcd. */
export interface SiteView {
  readonly role: 'primary' | 'secondary';
  readonly node: string;
  readonly url: string;
  readonly epoch: number;
  readonly own_epoch: number | null;
  readonly fenced: boolean;
  /** A secondary's primary. */
  readonly primary_url: string | null;
  /** A secondary has its database (it can be promoted); a primary always. */
  readonly ready: boolean;
  /** A primary's newest event, a secondary's cursor. */
  readonly last_event_id: number | null;
  /** A secondary's blobs not synced yet (null: a primary, or no database yet). */
  readonly unsynced_blobs: number | null;
  readonly bootstrap_required: boolean;
  readonly sync_replication: SyncReplicationState | null;
}

/** The leader key's value: the primary that holds it under its session lease, and its epoch. */
export interface LeaderRecord {
  readonly node: string;
  readonly url: string;
  readonly epoch: number;
  readonly since: string;
}

/** What the leader last published of itself (a key without a lease: it outlives the primary). */
export interface LastPrimary {
  readonly node: string;
  readonly url: string;
  readonly epoch: number;
  readonly last_event_id: number;
  readonly sync_required: number;
  readonly sync_mode: 'off' | 'synchronous' | 'degraded';
  /** The secondaries that acknowledged its events lately (the synchronous replicas). */
  readonly sync_replicas: readonly string[];
  readonly at: number;
}

export interface FailoverRecord {
  readonly at: number;
  readonly epoch: number;
  readonly from: string | null;
  readonly to: string;
  readonly reason: 'primary lost' | 'switchover';
}

/** One member key: a site's view, published under its session lease, with its coordinator's decision. */
export interface MemberRecord extends SiteView {
  readonly decision: string;
  readonly at: number;
}

/** Everything under the key prefix, read in one range. */
export interface ClusterView {
  readonly leader: { record: LeaderRecord; lease: string } | null;
  /** The epoch counter and its text as stored (compared in the winning txn); null before the first leader. */
  readonly epoch: { value: number; text: string } | null;
  readonly members: readonly MemberRecord[];
  readonly lastPrimary: LastPrimary | null;
  readonly lastFailover: FailoverRecord | null;
  readonly paused: boolean;
  readonly switchoverTo: string | null;
}

export interface ElectionRules {
  readonly syncReplicas: number;
  readonly maximumLagOnFailover: number;
  readonly minSecondsBetweenFailovers: number;
}

/** Whether a secondary may be promoted now, and why not. */
export type Candidacy = { readonly eligible: true; readonly epoch: number; readonly reason: string } | { readonly eligible: false; readonly reason: string };

/**
 * Whether `me` should take the vacant leader key (issue 28, item 3), from the cluster as etcd shows
 * it: a pure function, so every rule has its unit test. With synchronous replication only a
 * replica the last primary named synchronous (or any live follower while every named one is
 * alive), and only while it was not degraded; otherwise only within `maximumLagOnFailover` events
 * of the last primary's last published event. Of the eligible, the one with the most events goes
 * first (ties by node name): it holds every event a live secondary holds, so every acknowledged
 * one, and the others wait for it, so two never race for the key with different histories.
 */
export function candidacy(view: ClusterView, me: SiteView, rules: ElectionRules, now: number): Candidacy {
  if (view.leader) return { eligible: false, reason: `${view.leader.record.node} holds the leader key` };
  if (me.role !== 'secondary') return { eligible: false, reason: 'not a secondary' };
  if (view.paused) return { eligible: false, reason: 'automatic failover is paused' };
  const last = view.lastPrimary;
  if (!last) return { eligible: false, reason: 'no primary ever held the leader key: nothing to fail over from' };
  const targeted = view.switchoverTo;
  if (targeted !== null && targeted !== me.node) return { eligible: false, reason: `a switchover to ${targeted} is under way` };
  const since = view.lastFailover ? (now - view.lastFailover.at) / 1000 : Infinity;
  if (targeted === null && since < rules.minSecondsBetweenFailovers) {
    return { eligible: false, reason: `flap protection: the last failover was ${Math.floor(since)} s ago (minSecondsBetweenFailovers ${rules.minSecondsBetweenFailovers})` };
  }
  const follows = (site: SiteView) => site.role === 'secondary' && site.ready && !site.bootstrap_required && site.last_event_id !== null && site.primary_url === last.url;
  /** Why a secondary may not be promoted on its own terms; null when it may. */
  const barred = (site: SiteView): string | null => {
    if (!site.ready || site.last_event_id === null || site.bootstrap_required) return 'this secondary has no database of its own yet';
    if (site.primary_url !== last.url) return `this secondary follows ${site.primary_url}, not the last primary ${last.url}`;
    if (targeted !== null) return null;
    if (rules.syncReplicas > 0) {
      if (last.sync_mode !== 'synchronous') return `the last primary was ${last.sync_mode}, not synchronous: acknowledged writes may be on no secondary`;
      // Not named a synchronous replica (it began to acknowledge after the last primary's last report):
      // still eligible while every named one is alive, since the furthest live secondary then holds all they held.
      const gone = last.sync_replicas.filter((node) => node !== site.node && !view.members.some((member) => member.node === node && follows(member)));
      if (!last.sync_replicas.includes(site.node) && (gone.length || !last.sync_replicas.length)) {
        return `not a synchronous replica of the last primary (${last.sync_replicas.join(', ') || 'none'}${gone.length ? `; ${gone.join(', ')} not alive` : ''})`;
      }
      return null;
    }
    const lag = last.last_event_id - (site.last_event_id ?? 0);
    return lag > rules.maximumLagOnFailover ? `lag ${lag} events above maximumLagOnFailover ${rules.maximumLagOnFailover}` : null;
  };
  const mine = barred(me);
  if (mine) return { eligible: false, reason: mine };
  if (me.epoch > (view.epoch?.value ?? 0)) return { eligible: false, reason: `this site knows epoch ${me.epoch}, above etcd's ${view.epoch?.value ?? 0}` };
  if (targeted === null) {
    const applied = me.last_event_id ?? 0;
    // Of the eligible, the furthest goes first (ties: the lower node name), so exactly one tries.
    const ahead = view.members.find(
      (other) =>
        other.node !== me.node &&
        follows(other) &&
        barred(other) === null &&
        (other.last_event_id! > applied || (other.last_event_id === applied && other.node < me.node)),
    );
    if (ahead) return { eligible: false, reason: `${ahead.node} is further (event ${ahead.last_event_id}, here ${applied}): it goes first` };
  }
  const applied = me.last_event_id;
  const epoch = Math.max(view.epoch?.value ?? 0, me.epoch, last.epoch) + 1;
  return { eligible: true, epoch, reason: targeted ? `switchover target, at event ${applied}` : `most caught-up eligible secondary, at event ${applied} of ${last.last_event_id}` };
}
