import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { constants, setPriority } from 'node:os';
import type { Readable, Writable } from 'node:stream';

export interface GitOptions {
  /** Working directory; defaults to the process's. */
  readonly cwd?: string;
  /** Killed (SIGKILL) after this long; a hung git must not hold a request forever. */
  readonly timeoutMs?: number;
  /** stdout and stderr are each kept up to this many bytes; more is an error, never a silent cut. */
  readonly maxOutputBytes?: number;
  /** Extra environment on top of the process's. */
  readonly env?: Readonly<Record<string, string>>;
  /** Kills git (SIGKILL) when aborted: a site that stops must not wait out a long clone. */
  readonly signal?: AbortSignal;
  /** runGit writes this to git's stdin (a commit message for commit-tree), instead of closing it empty. */
  readonly input?: string | Buffer;
  /** Exit codes besides 0 that are answers, not failures (merge-tree's 1: the merge conflicts); runGit resolves with them. */
  readonly answerExitCodes?: readonly number[];
}

export interface GitResult {
  readonly stdout: string;
  readonly stderr: string;
  /** 0, or one of the options' answerExitCodes. */
  readonly exitCode: number;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_OUTPUT = 16 * 1024 * 1024;

/** A git command that failed; `stderr` is git's own explanation. */
export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args.join(' ')} failed${exitCode === null ? '' : ` (exit ${exitCode})`}: ${stderr.trim() || 'no output'}`);
  }
}

/**
 * The one way the service runs git: spawned without a shell (arguments are never parsed by one),
 * with prompts disabled so a missing credential fails instead of waiting on a terminal, a
 * timeout, and capped output. Resolves with stdout and stderr; rejects with a GitError carrying
 * stderr.
 */
export function runGit(args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
  const maxOutput = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const git = startGit(args, options, DEFAULT_TIMEOUT_MS);
  git.stdin.end(options.input);
  const out: Buffer[] = [];
  let outBytes = 0;
  git.stdout.on('data', (chunk: Buffer) => {
    outBytes += chunk.length;
    if (outBytes > maxOutput) return git.stop(`stdout exceeded ${maxOutput} bytes`);
    out.push(chunk);
  });
  return git.done.then(({ stderr, exitCode }) => ({ stdout: Buffer.concat(out).toString('utf8'), stderr, exitCode }));
}

function spawnOptions(options: GitOptions) {
  return {
    cwd: options.cwd,
    shell: false,
    stdio: ['pipe', 'pipe', 'pipe'] as ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0', ...options.env },
  };
}

/** A streaming git: its stdin and stdout are the caller's to pipe; `done` settles when it exits. */
export interface GitStream {
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** Resolves with stderr (capped) when git exits 0; rejects with a GitError otherwise (timeout and abort included). */
  readonly done: Promise<{ readonly stderr: string }>;
  /** Kills git (SIGKILL), e.g. when the client went away. */
  kill(): void;
}

const DEFAULT_STREAM_TIMEOUT_MS = 60 * 60_000;
/**
 * Lowers a streaming git's CPU priority, so a burst of clones delays other clones rather than
 * every API request. Set right after spawn: the pack-objects upload-pack starts later inherits it.
 */
function lowerPriority(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    setPriority(pid, constants.priority.PRIORITY_LOW);
  } catch {
    // Already exited (ESRCH): nothing left to slow down.
  }
}

/**
 * The same wrapper's streaming mode, for data too large to hold (packs over smart HTTP): spawned
 * without a shell, prompts disabled, a timeout (an hour by default) and abort; stdin and stdout
 * are never buffered here, only stderr is kept (up to maxOutputBytes) for the error.
 */
export function streamGit(args: readonly string[], options: GitOptions = {}): GitStream {
  const git = startGit(args, options, DEFAULT_STREAM_TIMEOUT_MS);
  lowerPriority(git.pid);
  return { stdin: git.stdin, stdout: git.stdout, done: git.done, kill: () => git.stop('killed') };
}

/**
 * The wrapper's serving mode, for one git that answers many requests over its pipes (`cat-file
 * --batch-command`): as streamGit, but at normal priority (API reads wait on it), `timeoutMs` is
 * its whole lifetime, and it never keeps node running by itself (a CLI exits while one idles).
 */
export function serveGit(args: readonly string[], options: GitOptions & { readonly timeoutMs: number }): GitStream {
  const git = startGit(args, options, options.timeoutMs);
  git.unref();
  return { stdin: git.stdin, stdout: git.stdout, done: git.done, kill: () => git.stop('killed') };
}

/** Spawns git with both pipes, the timeout, abort and the stderr cap; both modes above build on it. */
function startGit(args: readonly string[], options: GitOptions, defaultTimeoutMs: number) {
  const maxOutput = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const child: ChildProcessByStdio<Writable, Readable, Readable> = spawn('git', args, spawnOptions(options)) as ChildProcessByStdio<
    Writable,
    Readable,
    Readable
  >;
  let failure: string | null = null;
  const stop = (reason: string) => {
    failure ??= reason;
    child.kill('SIGKILL');
  };
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  const timer = setTimeout(() => stop(`timed out after ${timeoutMs} ms`), timeoutMs);
  const onAbort = () => stop('aborted');
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  const err: Buffer[] = [];
  let errBytes = 0;
  child.stderr.on('data', (chunk: Buffer) => {
    errBytes += chunk.length;
    if (errBytes <= maxOutput) err.push(chunk);
  });
  // A git that exits before reading all its input closes the pipe: that is reported by `done`, not as an EPIPE crash.
  child.stdin.on('error', () => undefined);
  const done = new Promise<{ stderr: string; exitCode: number }>((resolve, reject) => {
    const settle = () => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    };
    child.once('error', (error) => {
      settle();
      reject(new GitError(args, null, `could not start git: ${error.message}`));
    });
    child.once('close', (code) => {
      settle();
      const stderr = Buffer.concat(err).toString('utf8');
      if (failure !== null) return reject(new GitError(args, code, `${failure}${stderr ? `; ${stderr}` : ''}`));
      const answer = code === 0 || (code !== null && !!options.answerExitCodes?.includes(code));
      if (!answer) return reject(new GitError(args, code, stderr));
      resolve({ stderr, exitCode: code ?? 0 });
    });
  });
  const unref = () => {
    child.unref();
    for (const pipe of [child.stdin, child.stdout, child.stderr]) (pipe as unknown as { unref?: () => void }).unref?.();
    timer.unref();
  };
  return { stdin: child.stdin, stdout: child.stdout, done, stop, unref, pid: child.pid };
}
