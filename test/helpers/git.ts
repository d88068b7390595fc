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
  /** `origin` + `/hook`. */
  readonly url: string;
  /** `http://127.0.0.1:<port>`: hooks may point at any path below it. */
  readonly origin: string;
  /** Every delivery, in arrival order: the path it was sent to, its X-Gitlab-Event header, and the parsed body. */
  readonly received: { path: string; event: string | undefined; headers: IncomingMessage['headers']; body: any }[];
  /** The deliveries sent to `path`. */
  deliveriesTo(path: string): HookReceiver['received'];
  close(): void;
  /** Closes the server and resolves once it is closed. */
  stop(): Promise<void>;
}

/** A local webhook receiver on a free loopback port that records every delivery and answers 200. */
export async function startHookReceiver(): Promise<HookReceiver> {
  const received: HookReceiver['received'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const event = req.headers['x-gitlab-event'] as string | undefined;
      received.push({ path: req.url ?? '', event, headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/hook`,
    origin,
    received,
    deliveriesTo: (path) => received.filter((delivery) => delivery.path === path),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
