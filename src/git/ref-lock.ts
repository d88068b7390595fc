/** The tail of each key's queue: the promise the next holder waits on. */
const tails = new Map<string, Promise<void>>();

/** Where a ref lock is also taken when other processes serve the same site (src/cluster/ref-locks.ts). */
export interface SiteRefLocking {
  /** Resolves once this process holds the lock among the site's processes. */
  acquire(key: string): Promise<void>;
  release(key: string): void;
}

/** Null: this process is the whole site, and its own queue is the lock. */
let site: SiteRefLocking | null = null;

/** A cluster worker holds its ref locks across the site's processes (set once at its boot). */
export function lockRefsAcrossProcesses(locking: SiteRefLocking): void {
  site = locking;
}

/**
 * Runs `work` once every earlier holder of the same key (a repository and one of its refs) is
 * done, so merges into one target branch run one at a time in the site and do not fail each
 * other's compare-and-swap. The update-ref CAS stays the guarantee (a push takes no lock): this
 * lock saves the losers a wasted merge, and keeps two workers accepting one merge request from
 * both reading it open. Resolves or rejects with `work`'s outcome; a failure never blocks the queue.
 */
export function withRefLock<T>(repository: string, ref: string, work: () => Promise<T>): Promise<T> {
  return oneAtATimeInSite(`${repository}\0${ref}`, work);
}

/**
 * Runs `work` after every earlier work of the same key settled, in the whole site: callers in this
 * process queue here, and with workers the one at the head of the queue then takes the site's
 * lock (one message to the supervisor). Resolves or rejects with `work`'s outcome.
 */
export async function oneAtATimeInSite<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => mine);
  tails.set(key, tail);
  await previous;
  try {
    return await (site ? holdingSiteLock(site, key, work) : work());
  } finally {
    release();
    // The last holder removes the key, so the map holds only keys with work queued.
    if (tails.get(key) === tail) tails.delete(key);
  }
}

async function holdingSiteLock<T>(locking: SiteRefLocking, key: string, work: () => Promise<T>): Promise<T> {
  await locking.acquire(key);
  try {
    return await work();
  } finally {
    locking.release(key);
  }
}
