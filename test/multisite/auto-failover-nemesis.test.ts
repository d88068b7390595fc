import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { EtcdClient } from '../../src/cluster/etcd/client.js';
import { readView } from '../../src/cluster/etcd/coordinator.js';
import type { ClusterView } from '../../src/cluster/etcd/election.js';
import { EtcdCluster } from '../helpers/etcd.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { ROOT_TOKEN, SiteProcess, waitFor } from '../helpers/multisite.js';
import { checkHistory, type Operation } from '../lib/history-checker.js';

const TTL_SECONDS = 2;
const PREFIX = '/nemesis/';
const OBSERVE_MS = 50;
/** At least this many nemesis events per run (issue 28: 30 per CI run). */
const EVENTS = Number(process.env.NEMESIS_EVENTS ?? 30);

type Nemesis = 'kill-primary' | 'partition-primary' | 'partition-secondary' | 'restart-etcd-member';
const CYCLE: Nemesis[] = ['kill-primary', 'restart-etcd-member', 'partition-primary', 'restart-etcd-member', 'partition-secondary', 'restart-etcd-member'];

interface Node {
  readonly site: SiteProcess;
  /** One fault proxy per etcd member, between this site and etcd. */
  readonly proxies: FaultProxy[];
}

/** One client bound to one site: it writes users through it and reads them back through it. */
async function clientLoop(name: string, node: Node, operations: Operation[], running: () => boolean): Promise<void> {
  const mine: string[] = [];
  const call = async (method: 'GET' | 'POST', path: string, body?: object) => {
    const response = await request(`${node.site.url}/api/v4${path}`, {
      method,
      headers: { 'private-token': ROOT_TOKEN, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      headersTimeout: 5_000,
      bodyTimeout: 5_000,
    });
    const text = await response.body.text();
    return { status: response.statusCode, headers: response.headers, text };
  };
  while (running()) {
    const key = `n${randomUUID().replace(/-/g, '').slice(0, 14)}`;
    const invoke = Date.now();
    const answer = await call('POST', '/users', { username: key, email: `${key}@example.com`, name: key, reset_password: true }).catch(() => null);
    const complete = Date.now();
    if (answer?.status === 201) {
      mine.push(key);
      operations.push({ type: 'write', client: name, site: node.site.name, key, invoke, complete, outcome: 'ok', acceptedBy: { node: String(answer.headers['x-geoforge-node']), epoch: Number(answer.headers['x-geoforge-epoch']) } });
    } else {
      const definite = answer !== null && (answer.status === 503 || (answer.status >= 400 && answer.status < 500));
      operations.push({ type: 'write', client: name, site: node.site.name, key, invoke, complete, outcome: definite ? 'fail' : 'unknown', answer: `${answer?.status ?? 0} ${answer?.text.slice(0, 160) ?? ''}` });
      // Refused or unanswered: a pause, so a client of a site that is down does not spin.
      await new Promise((resolve) => setTimeout(resolve, answer ? 20 : 100));
    }
    if (!mine.length) continue;
    const target = mine[Math.floor(Math.random() * mine.length)];
    const readAt = Date.now();
    const read = await call('GET', `/users?username=${target}`).catch(() => null);
    const found = read?.status === 200 ? (JSON.parse(read.text) as unknown[]).length > 0 : false;
    operations.push({ type: 'read', client: name, site: node.site.name, key: target, invoke: readAt, complete: Date.now(), outcome: read?.status === 200 ? 'ok' : 'fail', found });
  }
}

describe('nemesis: kills, etcd partitions and etcd member restarts under writes and reads, checked by the history checker (issue 28)', () => {
  let etcd: EtcdCluster | null = null;
  const nodes: Node[] = [];
  let observer: EtcdClient | null = null;
  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.site.destroy()));
    await Promise.all(nodes.flatMap((node) => node.proxies.map((proxy) => proxy.close())));
    await observer?.close();
    await etcd?.destroy();
  });

  it(`runs ${EVENTS} nemesis events with no lost acknowledged write, no read lost, no two writers of an epoch, read-your-writes, and no write without the leader key`, async () => {
    etcd = await EtcdCluster.start(3);
    const cluster = etcd;
    observer = new EtcdClient({ endpoints: cluster.endpoints, caFile: null, certFile: null, keyFile: null, username: null, password: null });
    const etcdClient = observer;
    for (const name of ['site-a', 'site-b', 'site-c']) {
      const proxies: FaultProxy[] = [];
      for (const member of cluster.members) {
        const url = new URL(member.clientUrl);
        proxies.push(await startFaultProxy({ host: url.hostname, port: Number(url.port) }));
      }
      const env = {
        GEOFORGE_GEO_COORDINATOR: JSON.stringify({ endpoints: proxies.map((proxy) => proxy.url), keyPrefix: PREFIX, ttlSeconds: TTL_SECONDS, minSecondsBetweenFailovers: 0 }),
        GEOFORGE_GEO_SYNC_REPLICAS: '1',
        GEOFORGE_GEO_SYNC_TIMEOUT_MS: '10000',
        GEOFORGE_WORKERS: process.env.NEMESIS_WORKERS ?? '0',
      };
      const site = await SiteProcess.create({ name, role: name === 'site-a' ? 'primary' : 'secondary', primary: nodes[0]?.site, env });
      nodes.push({ site, proxies });
      if (name === 'site-a') await site.start();
    }
    await Promise.all(nodes.slice(1).map((node) => node.site.start()));

    // The etcd observer: the leader key's tenures, polled.
    const tenures: Array<{ node: string; epoch: number; from: number; to: number | null }> = [];
    let view: ClusterView | null = null;
    let observing = true;
    const observe = (async () => {
      while (observing) {
        const seenAt = Date.now();
        const read = await etcdClient.rangePrefix(PREFIX, 1_000).catch(() => null);
        if (read) {
          view = readView(PREFIX, read.kvs);
          const leader = view.leader?.record ?? null;
          const open = tenures.at(-1);
          if (open && open.to === null && (!leader || leader.node !== open.node || leader.epoch !== open.epoch)) open.to = seenAt;
          if (leader && (!open || open.to !== null || open.node !== leader.node || open.epoch !== leader.epoch)) tenures.push({ node: leader.node, epoch: leader.epoch, from: Date.now(), to: null });
        }
        await new Promise((resolve) => setTimeout(resolve, OBSERVE_MS));
      }
    })();
    const nodeOf = (name: string) => nodes.find((node) => node.site.name === name)!;
    /** A primary holds the key, both others follow it, ready, as its synchronous replicas. */
    const healthy = () => {
      const v = view;
      const leader = v?.leader?.record;
      if (!v || !leader || v.lastPrimary?.node !== leader.node || v.lastPrimary.sync_mode !== 'synchronous') return null;
      const others = nodes.filter((node) => node.site.name !== leader.node);
      for (const other of others) {
        const member = v.members.find((candidate) => candidate.node === other.site.name);
        if (!member || member.role !== 'secondary' || member.primary_url !== leader.url || !member.ready || member.bootstrap_required) return null;
        if (!v.lastPrimary.sync_replicas.includes(other.site.name)) return null;
      }
      return leader;
    };
    const describeView = () => {
      const v = view;
      const members = v?.members.map((m) => `${m.node}: ${m.role} of ${m.primary_url}, ready ${m.ready}, bootstrap ${m.bootstrap_required}, event ${m.last_event_id}, ${m.decision}`) ?? [];
      const logs = nodes.map((node) => `--- ${node.site.name}\n${node.site.output.split('\n').filter((line) => !/"route":"\/api\/v4\/(geo|users)/.test(line) || (/coordinator-state|local\/(demote|follow|promote)/.test(line) && !/"status":200/.test(line))).slice(-25).join('\n')}`);
      return `leader ${JSON.stringify(v?.leader)}, last primary ${JSON.stringify(v?.lastPrimary)}\n${members.join('\n')}\n${logs.join('\n')}`;
    };
    const waitHealthy = (what: string) =>
      waitFor(healthy, { timeoutMs: 45_000, intervalMs: 50, message: `cluster healthy after ${what}` }).catch((error: Error) => {
        error.message += `\n${describeView()}`;
        if (process.env.NEMESIS_DUMP) for (const node of nodes) writeFileSync(path.join(process.env.NEMESIS_DUMP, `${node.site.name}.log`), node.site.output);
        throw error;
      });
    const newLeader = (old: string) => waitFor(() => (view?.leader && view.leader.record.node !== old ? view.leader.record : null), { timeoutMs: 20_000, intervalMs: 25, message: `a leader other than ${old}` });
    await waitHealthy('start');

    const operations: Operation[] = [];
    let running = true;
    const clients = nodes.map((node, index) => clientLoop(`client-${index + 1}`, node, operations, () => running));
    const failovers: number[] = [];
    const log: string[] = [];
    let etcdIndex = 0;
    try {
      for (let event = 0; event < EVENTS; event++) {
        const kind = CYCLE[event % CYCLE.length];
        const leader = await waitHealthy(`event ${event}`);
        const primary = nodeOf(leader.node);
        const started = Date.now();
        if (kind === 'kill-primary') {
          primary.site.signal('SIGKILL');
          await newLeader(leader.node);
          failovers.push(Date.now() - started);
          await primary.site.kill('SIGKILL');
          await primary.site.start({ ready: false });
        } else if (kind === 'partition-primary') {
          for (const proxy of primary.proxies) proxy.set('drop');
          await newLeader(leader.node);
          failovers.push(Date.now() - started);
          for (const proxy of primary.proxies) proxy.set('pass');
        } else if (kind === 'partition-secondary') {
          const secondary = nodes.find((node) => node !== primary)!;
          for (const proxy of secondary.proxies) proxy.set('drop');
          // Its session lease runs out: its member key goes.
          await waitFor(() => !view?.members.some((member) => member.node === secondary.site.name), { timeoutMs: 20_000, intervalMs: 25, message: `${secondary.site.name}'s member key expires` });
          for (const proxy of secondary.proxies) proxy.set('pass');
        } else {
          await cluster.restart(etcdIndex++ % cluster.members.length);
          await cluster.waitHealthy();
        }
        log.push(`${event}: ${kind} (primary ${leader.node}) ${Date.now() - started} ms`);
      }
      await waitHealthy('the last event');
    } finally {
      running = false;
      await Promise.all(clients);
    }
    observing = false;
    await observe;
    // The end: every site caught up with the final primary; its keys are the final state.
    const finalLeader = healthy()!;
    const finalPrimary = nodeOf(finalLeader.node).site;
    const db = finalPrimary.openReadOnly();
    const final = new Set(db.prepare('SELECT username FROM users').pluck().all() as string[]);
    db.close();
    if (process.env.NEMESIS_DUMP) writeFileSync(path.join(process.env.NEMESIS_DUMP, 'history.json'), JSON.stringify({ operations, tenures, final: [...final] }));
    const result = checkHistory({ operations, tenures, final }, { syncReplicas: 1, observationSlackMs: OBSERVE_MS * 2 });
    const sorted = [...failovers].sort((a, b) => a - b);
    const writers = new Map<string, number>();
    for (const op of operations) if (op.type === 'write' && op.acceptedBy) writers.set(`${op.acceptedBy.node}@${op.acceptedBy.epoch}`, (writers.get(`${op.acceptedBy.node}@${op.acceptedBy.epoch}`) ?? 0) + 1);
    console.log(
      `nemesis: ${EVENTS} events, ${operations.length} operations (${result.stats.acknowledged} acknowledged writes of ${result.stats.writes}, ${result.stats.reads} reads), ` +
        `${tenures.length} leader tenures over ${result.stats.epochs} epochs; failovers (event -> new leader in etcd) median ${sorted[Math.floor(sorted.length / 2)]} ms, worst ${sorted.at(-1)} ms\n` +
        `writes accepted per writer@epoch: ${JSON.stringify(Object.fromEntries(writers))}; tenures: ${tenures.map((t) => `${t.node}@${t.epoch}`).join(' ')}\n${log.join('\n')}`,
    );
    expect(result.violations.slice(0, 10)).toEqual([]);
    expect(result.stats.acknowledged).toBeGreaterThan(EVENTS);
    expect(tenures.length).toBeGreaterThan(EVENTS / 4);
  }, 600_000);
});
