import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { nowIso } from '../storage/clock.js';
import type { CoordinatorStatus } from '../cluster/etcd/coordinator.js';
import type { FencingClaims } from './signing.js';
import { readFreeze, readRoleState, writeFreeze, writeRoleState, type RoleState } from './role-state.js';

/** The other workers of the site, as the fence sees them (server.ts wires them to the site bus). */
export interface FenceOthers {
  /** This worker changed the role state or the freeze on disk. */
  changed(): void;
  /** Resolves true once every other worker's writes in flight ended, false past `timeoutMs`. */
  drained(timeoutMs: number): Promise<boolean>;
}

/** Why a primary refuses writes now; null when it takes them. */
export type WriteRefusal = { kind: 'fenced'; epoch: number; primaryUrl: string | null } | { kind: 'frozen'; by: string } | { kind: 'no-lease' } | null;

/**
 * What a site knows of the fencing epoch (issue 18, item 2), shared by the site's role instances
 * (a promotion swaps those, not this). Every site-to-site call carries the signer's epoch and the
 * URL of that epoch's primary; a site that learns of a higher epoch records it durably, and a
 * primary that learns one refuses writes from then on: two primaries never both accept writes once
 * either knows. A planned promotion also freezes the old primary for a short lease, so its last
 * event is final while the new primary catches up.
 */
export class Fence {
  private state: RoleState;
  private frozenUntil = 0;
  private frozenBy = '';
  private writesInFlight = 0;
  private drainWaiters: Array<() => void> = [];
  /** The site's other workers (src/cluster/): told of each change, and drained with this one on a freeze. */
  private others: FenceOthers = { changed: () => undefined, drained: async () => true };
  /**
   * With geoCoordinator, a primary takes writes only until this time (ms since the epoch): the end
   * of its etcd leader lease less the safety margin, told by the coordinator at each renewal
   * (src/cluster/etcd/). 0 until the first: a primary that never won the leader key takes none.
   */
  private leaseUntil = 0;
  /** What the coordinator last told of itself, for the status pages (null without geoCoordinator). */
  private coordinatorStatus: CoordinatorStatus | null = null;

  constructor(private readonly config: Config, persisted: RoleState | null, private readonly log: Logger) {
    // A primary killed while frozen comes back frozen for the rest of the lease: writes it took
    // then would be past the final event the promoting site waits for, and lost to it.
    const freeze = readFreeze(config.dataDir);
    if (freeze) [this.frozenUntil, this.frozenBy] = [freeze.until, freeze.by];
    this.state = persisted ?? {
      role: config.role,
      primaryUrl: config.role === 'secondary' ? config.primaryUrl : null,
      epoch: 0,
      epochPrimaryUrl: config.role === 'secondary' ? config.primaryUrl : null,
      ownEpoch: 0,
      supersedes: { role: config.role, primaryUrl: config.role === 'secondary' ? config.primaryUrl : null },
      reason: 'learned epoch',
      changedAt: nowIso(),
    };
  }

  /** Joins the site's other workers: they reload() when this one changes the state, and a freeze drains them too. */
  join(others: FenceOthers): void {
    this.others = others;
  }

  /** Reads the state and the freeze again from the data directory: another worker of the site changed them. */
  reload(): void {
    this.state = readRoleState(this.config.dataDir) ?? this.state;
    const freeze = readFreeze(this.config.dataDir);
    [this.frozenUntil, this.frozenBy] = freeze ? [freeze.until, freeze.by] : [0, ''];
  }

  get epoch(): number {
    return this.state.epoch;
  }

  /** The primary of the highest known epoch; null when that is this site. */
  get epochPrimaryUrl(): string | null {
    return this.state.epochPrimaryUrl;
  }

  /** What this site's signed calls carry; `selfUrl` names the primary when it is this site. */
  claims(selfUrl: string): FencingClaims {
    return { epoch: this.state.epoch, primary: this.state.epochPrimaryUrl ?? selfUrl };
  }

  get ownEpoch(): number {
    return this.state.ownEpoch;
  }

  get current(): RoleState {
    return this.state;
  }

  /** On a primary: a higher epoch is known, so another site is the primary. */
  fenced(): boolean {
    return this.state.role === 'primary' && this.state.epoch > this.state.ownEpoch;
  }

  /**
   * Records an epoch heard from another site (a signed call's claims, an event batch, an answer).
   * Returns true when it was higher than any known: the caller may have to stop acting on the old one.
   */
  learn(epoch: number, primaryUrl: string | null, from: string): boolean {
    if (!Number.isSafeInteger(epoch) || epoch <= this.state.epoch) return false;
    const wasFenced = this.fenced();
    this.persist({ ...this.state, epoch, epochPrimaryUrl: primaryUrl });
    this.log.warn({ epoch, primary: primaryUrl, from }, 'geo: learned a higher fencing epoch');
    if (!wasFenced && this.fenced()) this.log.error({ epoch, primary: primaryUrl }, 'geo: this primary is fenced: another site was promoted; writes are refused until it is demoted');
    return true;
  }

  /**
   * Replaces the role state (promote, demote, follow), durably, before the site acts on it. A
   * freeze belonged to the role it froze: an old primary demoted and promoted back within the
   * lease of its successor's promotion would otherwise refuse writes as "being promoted".
   */
  transition(next: Omit<RoleState, 'supersedes' | 'changedAt'>): void {
    this.persist({ ...next, supersedes: this.state.supersedes, changedAt: nowIso() });
    this.thaw();
  }

  /** A re-bootstrap asked for by demote or follow is done. */
  bootstrapDone(): void {
    if (this.state.bootstrapRequired) this.persist({ ...this.state, bootstrapRequired: false });
  }

  private persist(next: RoleState): void {
    writeRoleState(this.config.dataDir, next);
    this.state = next;
    this.others.changed();
  }

  /** Why a write must be refused now; null when this site takes writes. */
  writeRefusal(now = Date.now()): WriteRefusal {
    if (this.fenced()) return { kind: 'fenced', epoch: this.state.epoch, primaryUrl: this.state.epochPrimaryUrl };
    if (now < this.frozenUntil) return { kind: 'frozen', by: this.frozenBy };
    if (this.config.geoCoordinator && now >= this.leaseUntil) return { kind: 'no-lease' };
    return null;
  }

  /** The coordinator renewed (or lost, 0) this primary's leader lease: writes are taken until `untilMs`. */
  holdLease(untilMs: number, status: CoordinatorStatus | null): void {
    this.leaseUntil = untilMs;
    this.coordinatorStatus = status;
  }

  get coordinator(): CoordinatorStatus | null {
    return this.coordinatorStatus;
  }

  /** Refuses writes for `ms` (a planned promotion's lease, renewed while it runs); resolves once the writes in flight have ended. */
  async freeze(ms: number, by: string, drainMs: number): Promise<boolean> {
    this.frozenUntil = Date.now() + ms;
    this.frozenBy = by;
    writeFreeze(this.config.dataDir, { until: this.frozenUntil, by });
    this.others.changed();
    const [here, elsewhere] = await Promise.all([this.drained(drainMs), this.others.drained(drainMs)]);
    return here && elsewhere;
  }

  /** Whether this process's writes in flight ended within `timeoutMs` (a freeze asked by another worker). */
  drainedHere(timeoutMs: number): Promise<boolean> {
    return this.drained(timeoutMs);
  }

  /** Lifts a freeze (a planned promotion that gave up). */
  thaw(): void {
    if (this.frozenUntil === 0) return;
    this.frozenUntil = 0;
    writeFreeze(this.config.dataDir, null);
    this.others.changed();
  }

  writeStarted(): void {
    this.writesInFlight++;
  }

  writeEnded(): void {
    this.writesInFlight--;
    if (this.writesInFlight === 0) for (const wake of this.drainWaiters.splice(0)) wake();
  }

  private drained(timeoutMs: number): Promise<boolean> {
    if (this.writesInFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.drainWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
