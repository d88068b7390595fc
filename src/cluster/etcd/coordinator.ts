import type { Logger } from 'pino';
import type { GeoCoordinatorConfig } from '../../config.js';
import { EtcdClient, type EtcdKv } from './client.js';
import { candidacy, type ClusterView, type FailoverRecord, type LastPrimary, type LeaderRecord, type MemberRecord, type SiteView } from './election.js';

/** What the coordinator does to its site (src/cluster/etcd/site-handle.ts: the site's own signed local API). */
export interface CoordinatedSite {
  state(): Promise<SiteView>;
  /** A forced promotion taking `epoch` (won in etcd). */
  promote(epoch: number): Promise<void>;
  follow(url: string): Promise<void>;
  demote(url: string): Promise<void>;
  /** Every process of the site takes writes until `untilMs` (ms since the epoch; 0: none); `status` is what its status pages show. */
  holdLease(untilMs: number, status: CoordinatorStatus): void;
}

/** What status, metrics and tests read of the coordinator. */
export interface CoordinatorStatus {
  readonly leader: LeaderRecord | null;
  readonly holds_leader_key: boolean;
  /** Writes are taken until then (ISO); null when this site takes none under a lease. */
  readonly writes_until: string | null;
  /** When the session lease was last renewed (null: no lease). */
  readonly lease_renewed_at: string | null;
  readonly eligible: boolean;
  readonly decision: string;
  readonly paused: boolean;
  readonly failovers: Readonly<Record<string, number>>;
}

/** The keys under the prefix. */
export const coordinatorKeys = (prefix: string) => ({
  leader: `${prefix}leader`,
  epoch: `${prefix}epoch`,
  members: `${prefix}members/`,
  lastPrimary: `${prefix}last-primary`,
  lastFailover: `${prefix}last-failover`,
  paused: `${prefix}paused`,
  switchover: `${prefix}switchover`,
});

/**
 * The clock-drift safety margin: a primary stops taking writes this long before its lease could
 * expire in etcd (a renewal sent at t holds the lease until at least t + ttl by etcd's clock). It
 * covers clock-rate drift between this machine and etcd's leader, and the telling of the site's
 * processes; the lease of a primary that misses renewals therefore ends here first, then in etcd,
 * and only then can another site win the leader key.
 */
export function safetyMarginMs(ttlSeconds: number): number {
  return Math.max(500, Math.round(ttlSeconds * 1000 * 0.2));
}

function parse<T>(kv: EtcdKv | undefined): T | null {
  if (!kv) return null;
  try {
    return JSON.parse(kv.value) as T;
  } catch {
    return null;
  }
}

export function readView(prefix: string, kvs: readonly EtcdKv[]): ClusterView {
  const keys = coordinatorKeys(prefix);
  const byKey = new Map(kvs.map((kv) => [kv.key, kv]));
  const leaderKv = byKey.get(keys.leader);
  const leader = parse<LeaderRecord>(leaderKv);
  const epochKv = byKey.get(keys.epoch);
  const switchover = parse<{ to: string }>(byKey.get(keys.switchover));
  return {
    leader: leader && leaderKv ? { record: leader, lease: leaderKv.lease } : null,
    epoch: epochKv && Number.isSafeInteger(Number(epochKv.value)) ? { value: Number(epochKv.value), text: epochKv.value } : null,
    members: kvs.filter((kv) => kv.key.startsWith(keys.members)).flatMap((kv) => parse<MemberRecord>(kv) ?? []),
    lastPrimary: parse<LastPrimary>(byKey.get(keys.lastPrimary)),
    lastFailover: parse<FailoverRecord>(byKey.get(keys.lastFailover)),
    paused: byKey.has(keys.paused),
    switchoverTo: switchover?.to ?? null,
  };
}

/**
 * A site's etcd coordinator (issue 28), run by its supervisor (in the embedded mode, by its one
 * process). It keeps a session lease and publishes the site's state under it; a primary holds the
 * leader key under that lease and takes writes only while the lease is surely alive (the safety
 * margin above). When the leader key is gone, the most caught-up eligible secondary wins it in one
 * txn that also raises the epoch counter (two primaries never share an epoch) and promotes itself
 * with that epoch; the others follow it, and an old primary that returns demotes and follows.
 */
export class Coordinator {
  private readonly etcd: EtcdClient;
  private readonly keys: ReturnType<typeof coordinatorKeys>;
  private readonly ttlMs: number;
  private readonly tickMs: number;
  private readonly callMs: number;
  private lease: { id: string; validUntil: number; renewedAt: number } | null = null;
  private writesUntil = 0;
  private timer: NodeJS.Timeout | null = null;
  private renewTimer: NodeJS.Timeout | null = null;
  private renewing: Promise<void> = Promise.resolve();
  private stopped = false;
  private running: Promise<void> = Promise.resolve();
  private decision = 'starting';
  private eligible = false;
  private view: ClusterView | null = null;
  private lastState: SiteView | null = null;
  /** The best candidate seen on the previous tick: a candidate promotes only once its view held for two ticks. */
  private settled: string | null = null;
  private acting = false;
  private readonly failovers: Record<string, number> = {};

  constructor(
    private readonly config: GeoCoordinatorConfig,
    private readonly rules: { syncReplicas: number },
    private readonly site: CoordinatedSite,
    private readonly log: Logger,
    private readonly onFailover: (reason: string) => void = () => undefined,
  ) {
    this.etcd = new EtcdClient(config);
    this.keys = coordinatorKeys(config.keyPrefix);
    this.ttlMs = config.ttlSeconds * 1000;
    this.tickMs = Math.min(1000, Math.max(100, Math.round(this.ttlMs / 6)));
    this.callMs = Math.min(2000, Math.round(this.ttlMs / 3));
  }

  start(): void {
    // Renewals on their own loop: a promotion under way (seconds) must not let the lease lapse.
    const renewLoop = () => {
      if (this.stopped) return;
      this.renewing = this.renew().finally(() => {
        if (!this.stopped) this.renewTimer = setTimeout(renewLoop, Math.min(this.tickMs, 250));
      });
    };
    renewLoop();
    const loop = () => {
      if (this.stopped) return;
      this.running = this.tick().catch((error: unknown) => this.decide(`error: ${(error as Error).message}`, 'warn'));
      void this.running.finally(() => {
        // No leader: every write waits for the election, so look again soon; but a candidate's second
        // look waits a whole tick, so that the others' states published meanwhile are seen.
        const fast = this.view !== null && !this.view.leader && this.settled === null;
        if (!this.stopped) this.timer = setTimeout(loop, fast ? Math.min(this.tickMs, 100) : this.tickMs);
      });
    };
    loop();
  }

  /** Stops the loop; the lease runs out in etcd by itself (a primary stopped is a primary lost). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.renewTimer) clearTimeout(this.renewTimer);
    await Promise.all([this.running, this.renewing]);
    await this.etcd.close().catch(() => undefined);
  }

  status(): CoordinatorStatus {
    const leader = this.view?.leader ?? null;
    return {
      leader: leader?.record ?? null,
      holds_leader_key: this.holdsKey(),
      writes_until: this.writesUntil > Date.now() ? new Date(this.writesUntil).toISOString() : null,
      lease_renewed_at: this.lease ? new Date(this.lease.renewedAt).toISOString() : null,
      eligible: this.eligible,
      decision: this.decision,
      paused: this.view?.paused ?? false,
      failovers: { ...this.failovers },
    };
  }

  /** Seconds since the session lease was last renewed; null without one (a metric). */
  leaseAgeSeconds(): number | null {
    return this.lease ? (Date.now() - this.lease.renewedAt) / 1000 : null;
  }

  private holdsKey(): boolean {
    const leader = this.view?.leader;
    return !!leader && !!this.lease && leader.lease === this.lease.id && leader.record.node === this.lastState?.node;
  }

  /** Logs a decision when it changes. */
  private decide(decision: string, level: 'info' | 'warn' = 'info'): void {
    if (decision === this.decision) return;
    this.decision = decision;
    this.log[level]({ coordinator: decision }, `geo coordinator: ${decision}`);
    this.site.holdLease(this.writesUntil, this.status());
  }

  /** Tells the site how long it may take writes; only ever from what a renewal proved. */
  private setWritesUntil(untilMs: number): void {
    if (untilMs === this.writesUntil) return;
    const was = this.writesUntil > Date.now();
    this.writesUntil = untilMs;
    this.site.holdLease(untilMs, this.status());
    const now = untilMs > Date.now();
    if (was !== now) this.log.warn({ writes_until: now ? new Date(untilMs).toISOString() : null }, now ? 'geo coordinator: this primary takes writes under its leader lease' : 'geo coordinator: this primary stopped taking writes (no leader lease)');
  }

  private async tick(): Promise<void> {
    let unanswered = '';
    const state = await this.site.state().catch((error: Error) => ((unanswered = error.message), null));
    if (state) this.lastState = state;
    if (!this.lease || !state) {
      this.fenceUnlessRenewed();
      if (!state) this.decide(`the site does not answer its coordinator: ${unanswered}`);
      return;
    }
    const { kvs } = await this.etcd.rangePrefix(this.config.keyPrefix, this.callMs);
    const view = readView(this.config.keyPrefix, kvs);
    this.view = view;
    const handingOver = view.switchoverTo !== null && view.switchoverTo !== state.node;
    if (this.holdsKey() && state.role === 'primary' && !state.fenced && state.own_epoch === view.leader!.record.epoch && !handingOver) {
      this.setWritesUntil(this.lease.validUntil - safetyMarginMs(this.config.ttlSeconds));
    } else {
      this.setWritesUntil(0);
    }
    await this.publish(state, view);
    if (this.acting) return;
    this.acting = true;
    try {
      await this.act(state, view);
    } finally {
      this.acting = false;
    }
  }

  /** No renewal succeeded: the site keeps the writes window it had (it ends on its own), never more. */
  private fenceUnlessRenewed(): void {
    if (this.writesUntil && this.writesUntil <= Date.now()) this.setWritesUntil(0);
  }

  private async renew(): Promise<void> {
    const now = Date.now();
    if (this.lease && now - this.lease.renewedAt < this.ttlMs / 3) return;
    try {
      if (!this.lease) {
        const granted = await this.etcd.grant(this.config.ttlSeconds, this.callMs);
        this.lease = { id: granted.id, validUntil: now + granted.ttlSeconds * 1000, renewedAt: now };
        this.log.info({ lease: granted.id, ttl_seconds: granted.ttlSeconds }, 'geo coordinator: session lease granted');
        return;
      }
      const ttl = await this.etcd.keepAlive(this.lease.id, this.callMs);
      if (ttl <= 0) {
        // Expired in etcd: the leader key (if held) went with it; writes stop now, a new session begins.
        this.log.warn({ lease: this.lease.id }, 'geo coordinator: the session lease expired in etcd');
        this.lease = null;
        this.setWritesUntil(0);
        return;
      }
      this.lease = { id: this.lease.id, validUntil: now + ttl * 1000, renewedAt: now };
    } catch (error) {
      this.decide(`etcd unreachable: ${(error as Error).message}`, 'warn');
      if (this.lease && this.lease.validUntil <= Date.now()) this.lease = null;
    }
  }

  private async publish(state: SiteView, view: ClusterView): Promise<void> {
    const member: MemberRecord = { ...state, decision: this.decision, at: Date.now() };
    await this.etcd.put(`${this.keys.members}${state.node}`, JSON.stringify(member), this.callMs, this.lease!.id);
    if (!this.holdsKey() || state.role !== 'primary') return;
    const sync = state.sync_replication;
    const last: LastPrimary = {
      node: state.node,
      url: state.url,
      epoch: view.leader!.record.epoch,
      last_event_id: state.last_event_id ?? 0,
      sync_required: sync?.replicas_required ?? 0,
      sync_mode: sync?.mode ?? 'off',
      sync_replicas: sync?.replicas.map((replica) => replica.node) ?? [],
      at: Date.now(),
    };
    // Only while this site holds the key: a deposed primary must not overwrite its successor's record.
    await this.etcd.txn([{ key: this.keys.leader, lease: this.lease!.id }], [{ put: this.keys.lastPrimary, value: JSON.stringify(last) }], this.callMs);
  }

  private async act(state: SiteView, view: ClusterView): Promise<void> {
    const leader = view.leader?.record ?? null;
    this.eligible = false;
    if (leader) {
      this.settled = null;
      if (leader.node === state.node) {
        if (this.holdsKey() && state.role === 'primary') {
          if (view.switchoverTo && view.switchoverTo !== state.node) return this.handOver(state, view, view.switchoverTo);
          return this.decide(`primary, holding the leader key (epoch ${leader.epoch})`);
        }
        return this.decide('the leader key names this site under an earlier session: waiting for it to expire');
      }
      if (state.role === 'primary') {
        if (leader.epoch > (state.own_epoch ?? 0)) {
          this.decide(`${leader.node} is the primary since epoch ${leader.epoch}: demoting this site to follow it`, 'warn');
          await this.site.demote(leader.url).catch((error: Error) => this.decide(`demote to follow ${leader.url} failed: ${error.message}`, 'warn'));
          return;
        }
        return this.decide(`${leader.node} holds the leader key at epoch ${leader.epoch}, not above this primary's: writes stay refused`, 'warn');
      }
      if (state.primary_url !== leader.url) {
        this.decide(`following the new primary ${leader.node} (epoch ${leader.epoch})`, 'warn');
        await this.site.follow(leader.url).catch((error: Error) => this.decide(`follow ${leader.url} failed: ${error.message}`, 'warn'));
        return;
      }
      return this.decide(`secondary of ${leader.node} (epoch ${leader.epoch})`);
    }
    if (state.role === 'primary') return this.acquire(state, view);
    const chance = candidacy(view, state, { syncReplicas: this.rules.syncReplicas, ...this.config }, Date.now());
    if (!chance.eligible) {
      this.settled = null;
      return this.decide(`no leader: not promoting (${chance.reason})`);
    }
    this.eligible = true;
    // The same view twice in a row: states published meanwhile (a cursor that moved on) are seen first.
    if (this.settled !== `${chance.epoch}`) {
      this.settled = `${chance.epoch}`;
      return this.decide(`no leader: eligible (${chance.reason}), checking again`);
    }
    await this.promote(state, view, chance.epoch, chance.reason);
  }

  /** A primary without the key takes it back when the epoch counter is still its own (nobody was promoted since). */
  private async acquire(state: SiteView, view: ClusterView): Promise<void> {
    const own = state.own_epoch ?? 0;
    if (state.fenced) return this.decide(`fenced at epoch ${state.epoch}: waiting for the leader to appear, to follow it`);
    if (view.switchoverTo && view.switchoverTo !== state.node) return this.decide(`switchover to ${view.switchoverTo}: leaving the leader key to it`);
    if (view.epoch && view.epoch.value !== own) return this.decide(`etcd's epoch is ${view.epoch.value}, not this primary's ${own}: another site was promoted; waiting for it`, 'warn');
    const record: LeaderRecord = { node: state.node, url: state.url, epoch: own, since: new Date().toISOString() };
    const won = await this.etcd.txn(
      [{ key: this.keys.leader, absent: true }, view.epoch ? { key: this.keys.epoch, value: view.epoch.text } : { key: this.keys.epoch, absent: true }],
      [
        { put: this.keys.leader, value: JSON.stringify(record), lease: this.lease!.id },
        { put: this.keys.epoch, value: String(own) },
      ],
      this.callMs,
    );
    this.decide(won ? `primary, took the leader key (epoch ${own})` : 'primary, lost the race for the leader key', won ? 'warn' : 'info');
  }

  /** Wins the vacant key with a new epoch in one txn, then promotes the site with that epoch. */
  private async promote(state: SiteView, view: ClusterView, epoch: number, reason: string): Promise<void> {
    const record: LeaderRecord = { node: state.node, url: state.url, epoch, since: new Date().toISOString() };
    const switchover = view.switchoverTo === state.node;
    const failover: FailoverRecord = { at: Date.now(), epoch, from: view.lastPrimary?.node ?? null, to: state.node, reason: switchover ? 'switchover' : 'primary lost' };
    const won = await this.etcd.txn(
      [{ key: this.keys.leader, absent: true }, view.epoch ? { key: this.keys.epoch, value: view.epoch.text } : { key: this.keys.epoch, absent: true }],
      [
        { put: this.keys.leader, value: JSON.stringify(record), lease: this.lease!.id },
        { put: this.keys.epoch, value: String(epoch) },
        { put: this.keys.lastFailover, value: JSON.stringify(failover) },
        ...(switchover ? [{ delete: this.keys.switchover }] : []),
      ],
      this.callMs,
    );
    if (!won) return this.decide('lost the race for the leader key');
    this.decide(`won the leader key at epoch ${epoch} (${reason}): promoting`, 'warn');
    try {
      await this.site.promote(epoch);
    } catch (error) {
      this.decide(`promotion at epoch ${epoch} failed: ${(error as Error).message}; releasing the leader key`, 'warn');
      await this.etcd.txn([{ key: this.keys.leader, lease: this.lease!.id }], [{ delete: this.keys.leader }], this.callMs).catch(() => undefined);
      return;
    }
    this.failovers[failover.reason] = (this.failovers[failover.reason] ?? 0) + 1;
    this.onFailover(failover.reason);
    // Writes at once, under the lease just proved, rather than at the next tick.
    const promoted = await this.site.state().catch(() => null);
    if (promoted?.role === 'primary' && promoted.own_epoch === epoch && this.lease) {
      this.lastState = promoted;
      this.view = { ...view, leader: { record, lease: this.lease.id } };
      this.setWritesUntil(this.lease.validUntil - safetyMarginMs(this.config.ttlSeconds));
      this.decide(`primary, promoted at epoch ${epoch}`, 'warn');
    }
  }

  /**
   * A planned switchover (geo switchover --to): the leader stops writes, waits until the target
   * applied its last event, then gives the key up; the target, named in etcd, wins it at once.
   */
  private async handOver(state: SiteView, view: ClusterView, target: string): Promise<void> {
    const member = view.members.find((candidate) => candidate.node === target);
    if (!member || member.role !== 'secondary' || member.primary_url !== state.url) {
      return this.decide(`switchover to ${target} waits: it is not a live secondary of this primary`, 'warn');
    }
    this.setWritesUntil(0);
    if ((member.last_event_id ?? -1) < (state.last_event_id ?? 0)) return this.decide(`switchover to ${target}: writes stopped, waiting for it to apply event ${state.last_event_id}`);
    this.decide(`switchover to ${target}: releasing the leader key`, 'warn');
    await this.etcd.txn([{ key: this.keys.leader, lease: this.lease!.id }], [{ delete: this.keys.leader }], this.callMs);
  }
}
