import { describe, expect, it } from 'vitest';
import { SiteRefLocks } from '../../src/cluster/ref-locks.js';

/** Which of these promises have settled, after the microtasks queued so far ran. */
async function settled(promises: Record<string, Promise<void>>): Promise<string[]> {
  const done: string[] = [];
  for (const [name, promise] of Object.entries(promises)) void promise.then(() => done.push(name));
  await new Promise((resolve) => setImmediate(resolve));
  return done.sort();
}

describe('the supervisor ref locks (src/cluster/ref-locks.ts)', () => {
  it('grants one holder per key at a time, the others in arrival order; keys are independent', async () => {
    const locks = new SiteRefLocks();
    const a = locks.acquire({ key: 'repo\0main', holder: 'request-1' });
    const b = locks.acquire({ key: 'repo\0main', holder: 'request-2' });
    const c = locks.acquire({ key: 'repo\0main', holder: 'background' });
    const other = locks.acquire({ key: 'repo\0feature', holder: 'request-2' });
    expect(await settled({ a, b, c, other })).toEqual(['a', 'other']);
    // Only the holder lets go.
    locks.release({ key: 'repo\0main', holder: 'background' });
    expect(await settled({ b, c })).toEqual([]);
    locks.release({ key: 'repo\0main', holder: 'request-1' });
    expect(await settled({ b, c })).toEqual(['b']);
    locks.release({ key: 'repo\0main', holder: 'request-2' });
    expect(await settled({ c })).toEqual(['c']);
    locks.release({ key: 'repo\0main', holder: 'background' });
    // Free again: taken at once.
    expect(await settled({ again: locks.acquire({ key: 'repo\0main', holder: 'request-1' }) })).toEqual(['again']);
  });

  it('a worker that died lets go of what it held and leaves the queues it waited in', async () => {
    const locks = new SiteRefLocks();
    void locks.acquire({ key: 'one', holder: 'request-1' });
    const waitsOne = locks.acquire({ key: 'one', holder: 'request-2' });
    void locks.acquire({ key: 'two', holder: 'background' });
    const deadWaiter = locks.acquire({ key: 'two', holder: 'request-1' });
    const waitsTwo = locks.acquire({ key: 'two', holder: 'request-2' });
    locks.releaseAll('request-1');
    expect(await settled({ waitsOne, waitsTwo, deadWaiter })).toEqual(['waitsOne']);
    locks.release({ key: 'two', holder: 'background' });
    // The dead worker's place was dropped: the next living one gets it.
    expect(await settled({ waitsTwo, deadWaiter })).toEqual(['waitsTwo']);
  });
});
