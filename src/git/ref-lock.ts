/** The tail of each key's queue: the promise the next holder waits on. */
const tails = new Map<string, Promise<void>>();

/**
 * Runs `work` once every earlier holder of the same key (a repository and one of its refs) is
 * done, so merges into one target branch run one at a time in this process and do not fail each
 * other's compare-and-swap. The update-ref CAS stays the guarantee: this lock only saves the
 * losers a wasted merge. Resolves or rejects with `work`'s outcome; a failure never blocks the queue.
 */
export async function withRefLock<T>(repository: string, ref: string, work: () => Promise<T>): Promise<T> {
  const key = `${repository}\0${ref}`;
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => mine);
  tails.set(key, tail);
  await previous;
  try {
    return await work();
  } finally {
    release();
    // The last holder removes the key, so the map holds only refs with work queued.
    if (tails.get(key) === tail) tails.delete(key);
  }
}
