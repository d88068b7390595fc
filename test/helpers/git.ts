import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runGit, type GitResult } from '../../src/git/cli.js';

/** A git client isolated from the machine: its own HOME, no system config, no prompts, a fixed identity. */
export function gitClient(home: string, timeoutMs = 30_000): (args: string[], cwd?: string, extraEnv?: Record<string, string>) => Promise<GitResult> {
  const env = {
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'Test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
  };
  return (args, cwd, extraEnv = {}) => runGit(args, { cwd, env: { ...env, ...extraEnv }, timeoutMs });
}

/** A project's smart HTTP URL, with the user's name and token in it when given. */
export function remoteUrl(siteUrl: string, project: { path_with_namespace: string }, user: { username: string; token: string } | null, suffix = '.git'): string {
  return `${siteUrl.replace('://', user ? `://${user.username}:${user.token}@` : '://')}/${project.path_with_namespace}${suffix}`;
}

export interface HookReceiver {
  readonly url: string;
  readonly received: { headers: IncomingMessage['headers']; body: any }[];
  close(): void;
}

/** A local webhook receiver on a free loopback port that records every delivery and answers 200. */
export async function startHookReceiver(): Promise<HookReceiver> {
  const received: HookReceiver['received'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
