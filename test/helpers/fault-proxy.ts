import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * What the proxy does to the connections it carries, switchable at runtime (new and open connections alike):
 * - pass: forwards bytes both ways untouched;
 * - delay: holds every chunk `delayMs` before forwarding it (order kept);
 * - drop: accepts connections and forwards nothing either way (a black hole: the client times out);
 *   leaving it resets the connections that lost bytes (their streams can never be whole again);
 * - reset: resets every connection at once (RST), new ones on accept;
 * - partition: refuses new connections (closes at accept) and resets the open ones;
 * - drip: forwards the upstream's answer `dripBytes` at a time, one slice every `dripMs`;
 * - truncate: forwards at most `truncateAfter` bytes of each answer, then ends the connection cleanly (FIN).
 */
export type FaultMode = 'pass' | 'delay' | 'drop' | 'reset' | 'partition' | 'drip' | 'truncate';

export interface FaultSettings {
  delayMs: number;
  dripBytes: number;
  dripMs: number;
  truncateAfter: number;
}

export interface FaultProxy {
  readonly url: string;
  readonly port: number;
  /** Connections accepted so far, and connections the fault touched (reset, refused, truncated). */
  readonly stats: { accepted: number; faulted: number };
  readonly mode: FaultMode;
  set(mode: FaultMode, settings?: Partial<FaultSettings>): void;
  close(): Promise<void>;
}

interface Pair {
  readonly client: Socket;
  readonly upstream: Socket;
  /** Bytes of the answer forwarded to the client. */
  sent: number;
  /** Bytes were dropped on this connection. */
  lost: boolean;
  /** Chunks waiting for their delay or drip slot, per direction, so order holds. */
  readonly queues: { up: Promise<void>; down: Promise<void> };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A TCP proxy on a loopback port in front of `target` (host:port), for fault tests between sites:
 * point a secondary's primary URL at `proxy.url` and switch faults on and off while it runs.
 */
export async function startFaultProxy(target: { host: string; port: number }, port = 0): Promise<FaultProxy> {
  let mode: FaultMode = 'pass';
  const settings: FaultSettings = { delayMs: 200, dripBytes: 16, dripMs: 50, truncateAfter: 64 };
  const stats = { accepted: 0, faulted: 0 };
  const pairs = new Set<Pair>();

  const kill = (pair: Pair) => {
    stats.faulted++;
    pair.client.resetAndDestroy();
    pair.upstream.resetAndDestroy();
    pairs.delete(pair);
  };

  /** Forwards one chunk in `direction` as the mode in force when it arrived says. */
  const forward = (pair: Pair, direction: 'up' | 'down', chunk: Buffer) => {
    const to = direction === 'up' ? pair.upstream : pair.client;
    const now = mode;
    if (now === 'drop') {
      pair.lost = true;
      return;
    }
    if (now === 'reset' || now === 'partition') return kill(pair);
    const write = (data: Buffer) => {
      if (to.destroyed) return;
      if (direction === 'down') pair.sent += data.length;
      to.write(data);
    };
    if (direction === 'down' && now === 'truncate') {
      const room = settings.truncateAfter - pair.sent;
      if (room > 0) write(chunk.subarray(0, room));
      if (pair.sent >= settings.truncateAfter && !pair.client.writableEnded) {
        stats.faulted++;
        pair.client.end();
        pair.upstream.destroy();
        pairs.delete(pair);
      }
      return;
    }
    if (now === 'delay') {
      const due = Date.now() + settings.delayMs;
      pair.queues[direction] = pair.queues[direction].then(async () => {
        await sleep(Math.max(0, due - Date.now()));
        write(chunk);
      });
      return;
    }
    if (now === 'drip' && direction === 'down') {
      pair.queues.down = pair.queues.down.then(async () => {
        for (let at = 0; at < chunk.length; at += settings.dripBytes) {
          write(chunk.subarray(at, at + settings.dripBytes));
          await sleep(settings.dripMs);
        }
      });
      return;
    }
    // Chunks queued earlier (delay, drip) go first.
    pair.queues[direction] = pair.queues[direction].then(() => write(chunk));
  };

  const server: Server = createServer((client) => {
    stats.accepted++;
    if (mode === 'partition' || mode === 'reset') {
      stats.faulted++;
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    const pair: Pair = { client, upstream, sent: 0, lost: false, queues: { up: Promise.resolve(), down: Promise.resolve() } };
    pairs.add(pair);
    const closeBoth = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk: Buffer) => forward(pair, 'up', chunk));
    upstream.on('data', (chunk: Buffer) => forward(pair, 'down', chunk));
    // A half-close travels after the chunks queued before it.
    client.on('end', () => void pair.queues.up.then(() => upstream.end()));
    upstream.on('end', () => void pair.queues.down.then(() => client.end()));
    client.on('error', closeBoth);
    upstream.on('error', closeBoth);
    client.on('close', closeBoth);
    upstream.on('close', () => void pair.queues.down.then(closeBoth));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const bound = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    stats,
    get mode() {
      return mode;
    },
    set(next, changes = {}) {
      Object.assign(settings, changes);
      if (mode === 'drop' && next !== 'drop') for (const pair of [...pairs]) if (pair.lost) kill(pair);
      mode = next;
      if (next === 'reset' || next === 'partition') for (const pair of [...pairs]) kill(pair);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const pair of [...pairs]) kill(pair);
        server.close(() => resolve());
      }),
  };
}
