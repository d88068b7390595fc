import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';

/** Servers share core 0 and the load generator owns core 1, so they never compete for a core. */
export const SERVER_CORE = 0;
export const LOAD_CORE = 1;

/** Pinning needs taskset and at least two cores; without it everything floats and the report says so. */
export const canPin = os.availableParallelism() >= 2 && spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;

/** The command line that runs `command` on `core` (unchanged when pinning is unavailable). */
export function onCore(core: number, command: string, args: readonly string[]): { command: string; args: string[] } {
  return canPin ? { command: 'taskset', args: ['-c', String(core), command, ...args] } : { command, args: [...args] };
}

/** Pins every thread of this process (autocannon runs in it) to `core`. */
export function pinSelf(core: number): void {
  if (canPin) execFileSync('taskset', ['-a', '-cp', String(core), String(process.pid)], { stdio: 'ignore' });
}

export interface CpuSample {
  /** Machine-wide jiffies from /proc/stat. */
  readonly total: number;
  readonly steal: number;
  /** user + nice + system, machine-wide. */
  readonly busy: number;
  /** utime + stime of the bench's own processes. */
  readonly ours: number;
}

/**
 * Machine-wide CPU time and the part used by `pids` (this process and its servers); zeros where
 * /proc does not exist. With `withChildren`, the time of their exited, reaped children counts as
 * theirs too (cutime + cstime): the git processes a git scenario's clients and servers spawn.
 */
export function sampleCpu(pids: readonly number[], withChildren = false): CpuSample {
  const stat = readProc('/proc/stat');
  if (stat === null) return { total: 0, steal: 0, busy: 0, ours: 0 };
  // user nice system idle iowait irq softirq steal [guest guest_nice]: guest time is already in user.
  const jiffies = stat.slice(0, stat.indexOf('\n')).trim().split(/\s+/).slice(1, 9).map(Number);
  const [user, nice, system, , , , , steal] = jiffies;
  return {
    total: jiffies.reduce((sum, value) => sum + value, 0),
    steal,
    busy: user + nice + system,
    ours: pids.reduce((sum, pid) => sum + processJiffies(pid, withChildren), 0),
  };
}

export interface CpuNoise {
  /** Share of all CPU time the hypervisor took away, in percent. */
  readonly stealPercent: number;
  /** Share of all CPU time used by processes outside the bench (a test run, a build), in percent. */
  readonly otherPercent: number;
}

export function cpuNoise(before: CpuSample, after: CpuSample): CpuNoise {
  const total = after.total - before.total;
  if (total <= 0) return { stealPercent: 0, otherPercent: 0 };
  const other = after.busy - before.busy - (after.ours - before.ours);
  return { stealPercent: (100 * (after.steal - before.steal)) / total, otherPercent: Math.max(0, (100 * other) / total) };
}

/** utime + stime of one process, all threads (plus cutime + cstime of its reaped children with `withChildren`); 0 once it is gone. */
function processJiffies(pid: number, withChildren: boolean): number {
  const stat = readProc(`/proc/${pid}/stat`);
  if (stat === null) return 0;
  // Fields after the parenthesised command name start at field 3 (state); utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]) + (withChildren ? Number(fields[13]) + Number(fields[14]) : 0);
}

function readProc(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}
