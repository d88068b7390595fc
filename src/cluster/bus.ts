import cluster from 'node:cluster';

/** A small message between the processes of one site: its kind names what it tells. */
export interface BusMessage {
  readonly kind: string;
  readonly [field: string]: unknown;
}

/**
 * How the processes of one site tell each other what changed in memory (src/cluster/supervisor.ts
 * relays). In the embedded mode (one process, `workers: 0` and tests) there is no one else:
 * broadcasts go nowhere, handoffs to the background run here, and gathers ask this process only.
 */
export interface SiteBus {
  /** True when other processes serve the same site. */
  readonly shared: boolean;
  /** Tells every other process of the site; this process applies its own change itself. */
  broadcast(message: BusMessage): void;
  /** Hands work to the background worker (this process when it is the one running the queues). */
  toBackground(message: BusMessage): void;
  /** Handles the messages of a kind (broadcast or handed over); returns the unsubscribe. */
  on(kind: string, handler: (message: BusMessage) => void): () => void;
  /** Answers the gathers of a kind in this process; returns the unsubscribe. */
  answer(kind: string, answerer: (payload: unknown) => unknown): () => void;
  /** Asks every process of the site, this one included, and resolves to their answers. */
  gather<T>(kind: string, payload?: unknown): Promise<T[]>;
  /** Asks the supervisor, which keeps what must be one for the whole site (rate-limit counters, ref locks). */
  ask<T>(kind: string, payload: unknown): Promise<T>;
}

/** The envelopes on the IPC channel between a worker and the supervisor. */
export type Envelope =
  | { readonly geoforge: 'broadcast' | 'background' | 'deliver'; readonly message: BusMessage }
  | { readonly geoforge: 'gather' | 'ask'; readonly id: number; readonly kind: string; readonly payload: unknown }
  | { readonly geoforge: 'answer'; readonly id: number; readonly value?: unknown; readonly error?: string };

export function isEnvelope(value: unknown): value is Envelope {
  return typeof value === 'object' && value !== null && typeof (value as { geoforge?: unknown }).geoforge === 'string';
}

/** Handlers and answerers by kind, shared by both kinds of bus. */
class Handlers {
  readonly handlers = new Map<string, Set<(message: BusMessage) => void>>();
  readonly answerers = new Map<string, (payload: unknown) => unknown>();

  on(kind: string, handler: (message: BusMessage) => void): () => void {
    let set = this.handlers.get(kind);
    if (!set) this.handlers.set(kind, (set = new Set()));
    set.add(handler);
    return () => set.delete(handler);
  }

  answer(kind: string, answerer: (payload: unknown) => unknown): () => void {
    this.answerers.set(kind, answerer);
    return () => {
      if (this.answerers.get(kind) === answerer) this.answerers.delete(kind);
    };
  }

  deliver(message: BusMessage): void {
    for (const handler of [...(this.handlers.get(message.kind) ?? [])]) handler(message);
  }

  async answerLocally(kind: string, payload: unknown): Promise<unknown> {
    const answerer = this.answerers.get(kind);
    if (!answerer) throw new Error(`nothing answers "${kind}" in this process`);
    return answerer(payload);
  }
}

/** The embedded mode's bus: this process is the whole site. */
export class LocalBus implements SiteBus {
  readonly shared = false;
  private readonly local = new Handlers();

  broadcast(): void {}

  toBackground(message: BusMessage): void {
    // On a later turn, as over IPC: the request that handed work over answers first.
    setImmediate(() => this.local.deliver(message));
  }

  on(kind: string, handler: (message: BusMessage) => void): () => void {
    return this.local.on(kind, handler);
  }

  answer(kind: string, answerer: (payload: unknown) => unknown): () => void {
    return this.local.answer(kind, answerer);
  }

  async gather<T>(kind: string, payload?: unknown): Promise<T[]> {
    return [(await this.local.answerLocally(kind, payload)) as T];
  }

  /** There is no supervisor: the embedded mode keeps the site-wide figures itself (server.ts). */
  ask<T>(kind: string): Promise<T> {
    return Promise.reject(new Error(`no supervisor to ask "${kind}": this site runs in one process`));
  }
}

/** A cluster worker's bus: everything goes through the supervisor over the IPC channel. */
export class WorkerBus implements SiteBus {
  readonly shared = true;
  private readonly local = new Handlers();
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private nextId = 1;

  constructor() {
    if (!cluster.isWorker || !process.send) throw new Error('WorkerBus: not a cluster worker');
    process.on('message', (value: unknown) => {
      if (isEnvelope(value)) this.receive(value);
    });
  }

  broadcast(message: BusMessage): void {
    this.send({ geoforge: 'broadcast', message });
  }

  toBackground(message: BusMessage): void {
    this.send({ geoforge: 'background', message });
  }

  on(kind: string, handler: (message: BusMessage) => void): () => void {
    return this.local.on(kind, handler);
  }

  answer(kind: string, answerer: (payload: unknown) => unknown): () => void {
    return this.local.answer(kind, answerer);
  }

  gather<T>(kind: string, payload?: unknown): Promise<T[]> {
    return this.request('gather', kind, payload) as Promise<T[]>;
  }

  ask<T>(kind: string, payload: unknown): Promise<T> {
    return this.request('ask', kind, payload) as Promise<T>;
  }

  private request(type: 'gather' | 'ask', kind: string, payload: unknown): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send({ geoforge: type, id, kind, payload });
    });
  }

  private receive(envelope: Envelope): void {
    switch (envelope.geoforge) {
      case 'deliver':
        return this.local.deliver(envelope.message);
      case 'gather':
        // The supervisor asks this process for its part of a gather.
        void this.local.answerLocally(envelope.kind, envelope.payload).then(
          (value) => this.send({ geoforge: 'answer', id: envelope.id, value }),
          (error: unknown) => this.send({ geoforge: 'answer', id: envelope.id, error: String((error as Error)?.message ?? error) }),
        );
        return;
      case 'answer': {
        const waiting = this.pending.get(envelope.id);
        this.pending.delete(envelope.id);
        if (!waiting) return;
        if (envelope.error !== undefined) waiting.reject(new Error(envelope.error));
        else waiting.resolve(envelope.value);
        return;
      }
      default:
    }
  }

  private send(envelope: Envelope): void {
    // The channel closes when the supervisor goes: nothing is left to tell.
    if (process.connected) process.send!(envelope);
  }
}
