import { describe, expect, it } from 'vitest';
import { checkHistory, type History, type LeaderTenure, type Operation, type ReadOp, type WriteOp } from '../lib/history-checker.js';

const options = { syncReplicas: 1, observationSlackMs: 50 };
const write = (key: string, invoke: number, extra: Partial<WriteOp> = {}): WriteOp => ({
  type: 'write',
  client: 'c1',
  site: 'a',
  key,
  invoke,
  complete: invoke + 10,
  outcome: 'ok',
  acceptedBy: { node: 'a', epoch: 0 },
  ...extra,
});
const read = (key: string, invoke: number, found: boolean, extra: Partial<ReadOp> = {}): ReadOp => ({ type: 'read', client: 'c1', site: 'a', key, invoke, complete: invoke + 5, outcome: 'ok', found, ...extra });
const tenures: LeaderTenure[] = [
  { node: 'a', epoch: 0, from: 0, to: 1000 },
  { node: 'b', epoch: 1, from: 1500, to: null },
];
const history = (operations: Operation[], final: string[], extra: Partial<History> = {}): History => ({ operations, tenures, final: new Set(final), ...extra });
const rules = (h: History, o = options) => checkHistory(h, o).violations.map((violation) => violation.rule);

describe('history checker (issue 28)', () => {
  it('passes a history across a failover where every acknowledged write survives', () => {
    const result = checkHistory(
      history(
        [
          write('k1', 100),
          read('k1', 200, true),
          write('k2', 900, { outcome: 'unknown', acceptedBy: undefined }),
          write('k3', 950, { outcome: 'fail', acceptedBy: undefined }),
          write('k4', 1600, { site: 'b', acceptedBy: { node: 'b', epoch: 1 } }),
          read('k4', 1700, true, { site: 'b' }),
        ],
        ['k1', 'k4'],
      ),
      options,
    );
    expect(result).toMatchObject({ valid: true, violations: [], stats: { writes: 4, acknowledged: 2, reads: 2, epochs: 2 } });
  });

  it('fails on an acknowledged write missing at the end, with synchronous replication only', () => {
    const h = history([write('k1', 100)], []);
    expect(rules(h)).toEqual(['lost-write']);
    expect(rules(h, { ...options, syncReplicas: 0 })).toEqual([]);
  });

  it('fails on a value read and later gone', () => {
    expect(rules(history([read('k9', 100, true)], []))).toEqual(['read-then-gone']);
    expect(rules(history([read('k9', 100, true, { outcome: 'fail' })], []))).toEqual([]);
  });

  it('fails on two sites accepting writes in the same epoch', () => {
    const h = history([write('k1', 100), write('k2', 200, { acceptedBy: { node: 'b', epoch: 0 } })], ['k1', 'k2'], {
      tenures: [...tenures, { node: 'b', epoch: 0, from: 0, to: null }],
    });
    expect(rules(h)).toEqual(['split-brain']);
  });

  it("fails on a read through a site missing the same client's write acknowledged there before", () => {
    expect(rules(history([write('k1', 100, { site: 'c' }), read('k1', 200, false, { site: 'c' })], ['k1']))).toEqual(['read-your-writes']);
    // Another client, another site, or a read begun before the write's answer: no promise was made.
    expect(rules(history([write('k1', 100, { site: 'c' }), read('k1', 200, false, { site: 'c', client: 'c2' })], ['k1']))).toEqual([]);
    expect(rules(history([write('k1', 100, { site: 'c' }), read('k1', 200, false, { site: 'b' })], ['k1']))).toEqual([]);
    expect(rules(history([write('k1', 100, { site: 'c' }), read('k1', 105, false, { site: 'c' })], ['k1']))).toEqual([]);
  });

  it('fails on a write accepted by a site after its leader key was gone, or in an epoch it never held', () => {
    expect(rules(history([write('k1', 1200)], ['k1']))).toEqual(['write-without-lease']);
    expect(rules(history([write('k1', 1600, { acceptedBy: { node: 'a', epoch: 1 } })], ['k1']))).toEqual(['write-without-lease']);
    // Invoked before the key was seen gone: the write may have been taken while the lease held.
    expect(rules(history([write('k1', 995)], ['k1']))).toEqual([]);
    // Completed just before the new holder was first seen, within the observer's poll interval.
    expect(rules(history([write('k1', 1450, { acceptedBy: { node: 'b', epoch: 1 } })], ['k1']))).toEqual([]);
    expect(rules(history([write('k1', 1400, { acceptedBy: { node: 'b', epoch: 1 } })], ['k1']))).toEqual(['write-without-lease']);
  });
});
