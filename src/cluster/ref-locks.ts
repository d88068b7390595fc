/**
 * A worker taking or letting go of a lock of git/ref-lock.ts: `key` names a repository and one of
 * its refs, or another queue that must hold across workers (a wiki's writes, a repository's checksums).
 */
export interface RefLockCall {
  readonly key: string;
  /** The worker's name: one holder per worker, whose own queue (git/ref-lock.ts) lets one of its callers ask at a time. */
  readonly holder: string;
}

interface Lock {
  holder: string;
  queue: Array<{ readonly holder: string; readonly grant: () => void }>;
}

/**
 * The ref locks of a site with workers, kept by the supervisor: one holder per ref across every
 * worker, the others granted it in arrival order. Without it two workers merging into one branch
 * would both build a merge, and the loser, seeing the target moved, would merge the same merge
 * request again before the winner recorded it as merged; two wiki writes would have the later one
 * refused. A worker that dies lets go of its locks.
 */
export class SiteRefLocks {
  private readonly locks = new Map<string, Lock>();

  /** Resolves once `holder` holds the lock. */
  acquire({ key, holder }: RefLockCall): Promise<void> {
    const lock = this.locks.get(key);
    if (!lock) {
      this.locks.set(key, { holder, queue: [] });
      return Promise.resolve();
    }
    return new Promise((grant) => lock.queue.push({ holder, grant }));
  }

  release({ key, holder }: RefLockCall): void {
    const lock = this.locks.get(key);
    if (lock?.holder === holder) this.handOn(key, lock);
  }

  /** A worker died: the locks it held go to the next in line, and its place in the queues is dropped. */
  releaseAll(holder: string): void {
    for (const [key, lock] of this.locks) {
      lock.queue = lock.queue.filter((waiting) => waiting.holder !== holder);
      if (lock.holder === holder) this.handOn(key, lock);
    }
  }

  private handOn(key: string, lock: Lock): void {
    const next = lock.queue.shift();
    if (!next) {
      this.locks.delete(key);
      return;
    }
    lock.holder = next.holder;
    next.grant();
  }
}
