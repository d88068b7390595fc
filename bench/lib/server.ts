import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { SERVER_CORE, onCore } from './cpu.js';
import type { Scope } from './scope.js';

export interface ServerSpec {
  /** Shown in the report and in errors. */
  readonly name: string;
  /** Arguments to `node` (script and its arguments); relative paths start at the repository root. */
  readonly nodeArgs: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly port: number;
  /** Polled until it answers 2xx. */
  readonly readyPath: string;
  /** Receives the server's stdout and stderr; the request log is part of the measured stack, so it is written, not dropped. */
  readonly logFile: string;
  /** The core it runs on: the server core unless it plays the client (a Geo secondary pulling from a primary). */
  readonly core?: number;
}

export interface RunningServer {
  readonly name: string;
  readonly url: string;
  /** The node process itself (taskset execs it), for CPU accounting. */
  readonly pid: number;
}

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 3_000;

/** Children still running, killed even when the bench exits without closing its scopes. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** A port free right now on 127.0.0.1 (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Starts a node server pinned to its core (the server core by default) and waits until it is ready; the scope stops it. */
export async function startServer(scope: Scope, spec: ServerSpec): Promise<RunningServer> {
  const { command, args } = onCore(spec.core ?? SERVER_CORE, process.execPath, spec.nodeArgs);
  const log = openSync(spec.logFile, 'w');
  const child = spawn(command, args, { cwd: REPO_ROOT, env: serverEnv(spec.env), stdio: ['ignore', log, log] });
  closeSync(log);
  running.add(child);
  const exited = new Promise<void>((resolve) => {
    const gone = () => {
      running.delete(child);
      resolve();
    };
    child.once('exit', gone);
    child.once('error', gone); // a failed spawn emits only 'error'
  });
  scope.defer(() => stop(child, exited));

  const url = `http://127.0.0.1:${spec.port}`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!(await answers(url + spec.readyPath))) {
    if (!running.has(child)) throw new Error(`${spec.name} exited (code ${child.exitCode ?? child.signalCode}) before it was ready:\n${tail(spec.logFile)}`);
    if (Date.now() > deadline) throw new Error(`${spec.name} not ready after ${READY_TIMEOUT_MS} ms:\n${tail(spec.logFile)}`);
    await sleep(50);
  }
  return { name: spec.name, url, pid: child.pid! };
}

/** This process's environment without GEOFORGE_* settings, so the caller's shell cannot change what is measured. */
function serverEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GEOFORGE_')));
  return { ...env, ...extra };
}

async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1_000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

/** SIGTERM lets geoforge close its database cleanly; SIGKILL if it does not exit in time. */
async function stop(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (!running.has(child)) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}

/** The last lines of a server's log, for error messages. */
function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
