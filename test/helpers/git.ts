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

export interface GitRemote {
  /** `http://127.0.0.1:<port>`: repositories are served below it by their path under the root. */
  readonly origin: string;
  /** The Authorization headers of every request, in arrival order (undefined when none was sent). */
  readonly authorizations: (string | undefined)[];
  stop(): Promise<void>;
}

/**
 * Serves the bare repositories under `root` over smart HTTP with git's own `git http-backend`
 * (CGI) on a free loopback port: a push mirror's remote. With `credentials`, every request must
 * carry them as HTTP Basic (401 otherwise), as a hosted remote would ask.
 */
export async function startGitRemote(root: string, credentials?: { user: string; password: string }): Promise<GitRemote> {
  const { spawn } = await import('node:child_process');
  const authorizations: (string | undefined)[] = [];
  const expected = credentials ? `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}` : null;
  const server: Server = createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    if (expected && req.headers.authorization !== expected) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="remote"' }).end('unauthorized');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://remote');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH ?? '',
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        GIT_CONFIG_NOSYSTEM: '1',
        HOME: root,
        REMOTE_USER: credentials?.user ?? 'anonymous',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headersDone = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headersDone) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headersDone = true;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        if (name === 'status') status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      res.write(head.subarray(end + 4));
    });
    cgi.on('close', () => {
      if (!headersDone) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    authorizations,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
