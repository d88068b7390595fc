import { setTimeout as sleep } from 'node:timers/promises';
import { loadSeconds } from './settings.js';

export interface OpenLoopSpec {
  /** Writes per second, started on schedule whatever the answers (open loop). */
  readonly rate: number;
  readonly seconds: number;
  /** Every n-th write is followed by a read-back whose latency is the sample. */
  readonly sampleEvery: number;
  /** Writes (with their read-backs) in flight at most; a write due beyond it is shed and counted. */
  readonly maxInFlight: number;
  /** Sequence number of the first write, so values stay unique across runs. */
  readonly firstSeq: number;
  /** Performs write `seq`; resolves to the position its read-back waits for, or throws. */
  write(seq: number): Promise<number>;
  /** Reads write `seq` back at `position`; resolves to null when it saw the written value, else the problem in words. */
  readBack(seq: number, position: number): Promise<string | null>;
}

export interface OpenLoopResult {
  /** Writes started, writes shed (in-flight bound reached), writes that failed. */
  readonly sent: number;
  readonly shed: number;
  readonly writeFailures: number;
  /** Successful writes per second, from the first write's start to the last write's answer. */
  readonly achievedRate: number;
  /** Milliseconds from a write's response to its read-back's answer, successful read-backs only. */
  readonly lags: number[];
  readonly writeLatencies: number[];
  /** Failed read-backs by problem. */
  readonly readFailures: Record<string, number>;
  readonly nextSeq: number;
}

/**
 * Starts writes at a fixed rate on a 1 ms timer (several per tick when due), never waiting for
 * answers; sampled writes are read back as soon as their response arrives and the clock runs from
 * that response to the read-back's answer. Waits for everything in flight before returning.
 * Under BENCH_SMOKE it stops after a few hundred writes.
 */
export async function runOpenLoop(spec: OpenLoopSpec): Promise<OpenLoopResult> {
  const lags: number[] = [];
  const writeLatencies: number[] = [];
  const readFailures: Record<string, number> = {};
  let sent = 0;
  let shed = 0;
  let writeFailures = 0;
  let inFlight = 0;
  let lastWriteAt = 0;
  const pending = new Set<Promise<void>>();

  const one = async (seq: number, sampled: boolean): Promise<void> => {
    const started = performance.now();
    let position: number;
    try {
      position = await spec.write(seq);
    } catch (error) {
      writeFailures++;
      if (writeFailures === 1) console.error(`write failed: ${(error as Error).message}`);
      return;
    }
    const written = performance.now();
    lastWriteAt = written;
    writeLatencies.push(written - started);
    if (!sampled) return;
    let problem: string | null;
    try {
      problem = await spec.readBack(seq, position);
    } catch (error) {
      problem = `read failed: ${(error as Error).message}`;
    }
    if (problem === null) lags.push(performance.now() - written);
    else readFailures[problem] = (readFailures[problem] ?? 0) + 1;
  };

  const start = performance.now();
  const end = start + loadSeconds(spec.rate, spec.seconds) * 1000;
  let due = 0;
  for (let now = start; now < end; now = performance.now()) {
    const dueNow = Math.floor(((now - start) * spec.rate) / 1000);
    for (; due < dueNow; due++) {
      if (inFlight >= spec.maxInFlight) {
        shed++;
        continue;
      }
      sent++;
      inFlight++;
      const work: Promise<void> = one(spec.firstSeq + due, due % spec.sampleEvery === 0).finally(() => {
        inFlight--;
        pending.delete(work);
      });
      pending.add(work);
    }
    await sleep(1);
  }
  await Promise.all(pending);
  const successful = sent - writeFailures;
  return {
    sent,
    shed,
    writeFailures,
    achievedRate: successful ? successful / ((lastWriteAt - start) / 1000) : 0,
    lags,
    writeLatencies,
    readFailures,
    nextSeq: spec.firstSeq + due,
  };
}
