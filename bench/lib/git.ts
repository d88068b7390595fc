import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { LOAD_CORE, onCore } from './cpu.js';

/**
 * A git client environment of its own: HOME in the bench's temp dir, no system or user config,
 * no prompts, a fixed identity, so nothing on the machine changes what is measured.
 */
export async function gitClientEnv(dir: string): Promise<Record<string, string>> {
  const home = path.join(dir, 'git-home');
  await mkdir(home, { recursive: true });
  return {
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Bench',
    GIT_AUTHOR_EMAIL: 'bench@example.com',
    GIT_COMMITTER_NAME: 'Bench',
    GIT_COMMITTER_EMAIL: 'bench@example.com',
  };
}

/**
 * Runs a git client on the load core (it is the load generator), spawned without a shell;
 * resolves with its stdout and wall time in ms, rejects with its stderr when it fails. A
 * `background` client runs niced, so an HTTP load generator sharing the core is not starved by it.
 */
export function gitClient(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  cwd?: string,
  background = false,
): Promise<{ stdout: string; ms: number }> {
  const pinned = onCore(LOAD_CORE, 'git', args);
  const { command, args: argv } = background ? { command: 'nice', args: ['-n', '19', pinned.command, ...pinned.args] } : pinned;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      const ms = performance.now() - started;
      if (code === 0) resolve({ stdout: Buffer.concat(out).toString('utf8'), ms });
      else reject(new Error(`git ${args.join(' ')} failed (${code ?? signal}): ${Buffer.concat(err).toString('utf8').trim()}`));
    });
  });
}

/** `http://user:token@host/...`: git sends the credentials as HTTP Basic. */
export const withCredentials = (url: string, user: string, token: string): string =>
  url.replace('://', `://${encodeURIComponent(user)}:${encodeURIComponent(token)}@`);
