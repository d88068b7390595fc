import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { freePort } from './free-port.js';

const ETCD = process.env.ETCD_BIN ?? '/usr/bin/etcd';

const OUTPUT_KEEP = 64 * 1024;

/** One member of the test etcd cluster: its client URL, and its process while it runs. */
export interface EtcdMember {
  readonly name: string;
  readonly clientUrl: string;
  readonly peerUrl: string;
  readonly dataDir: string;
  child: ChildProcess | null;
  output: string;
}

/**
 * A real etcd cluster of `size` members on loopback (free ports, temporary data directories),
 * with a fast heartbeat and election timeout so a member lost is replaced in under a second.
 * Members stop and start again on the same ports and data (a member restart keeps its raft log).
 */
export class EtcdCluster {
  private constructor(readonly members: EtcdMember[], private readonly root: string) {}

  static async start(size = 3): Promise<EtcdCluster> {
    const root = await mkdtemp(path.join(tmpdir(), 'geoforge-etcd-'));
    const members: EtcdMember[] = [];
    for (let i = 1; i <= size; i++) {
      const [client, peer] = [await freePort(), await freePort()];
      members.push({ name: `etcd${i}`, clientUrl: `http://127.0.0.1:${client}`, peerUrl: `http://127.0.0.1:${peer}`, dataDir: path.join(root, `etcd${i}`), child: null, output: '' });
    }
    const cluster = new EtcdCluster(members, root);
    try {
      for (const member of members) cluster.spawn(member, 'new');
      await cluster.waitHealthy();
    } catch (error) {
      await cluster.destroy();
      throw error;
    }
    return cluster;
  }

  get endpoints(): string[] {
    return this.members.map((member) => member.clientUrl);
  }

  private spawn(member: EtcdMember, state: 'new' | 'existing'): void {
    const initialCluster = this.members.map((other) => `${other.name}=${other.peerUrl}`).join(',');
    const child = spawn(
      ETCD,
      [
        '--name', member.name,
        '--data-dir', member.dataDir,
        '--listen-client-urls', member.clientUrl,
        '--advertise-client-urls', member.clientUrl,
        '--listen-peer-urls', member.peerUrl,
        '--initial-advertise-peer-urls', member.peerUrl,
        '--initial-cluster', initialCluster,
        '--initial-cluster-state', state,
        '--initial-cluster-token', path.basename(this.root),
        '--heartbeat-interval', '50',
        '--election-timeout', '500',
        '--log-level', 'warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    member.child = child;
    const keep = (chunk: Buffer) => {
      member.output += chunk.toString();
      if (member.output.length > OUTPUT_KEEP) member.output = member.output.slice(-OUTPUT_KEEP);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
  }

  /** Resolves once every running member answers a linearizable read (the cluster has a leader and quorum). */
  async waitHealthy(timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const healthy = async (member: EtcdMember) => {
      if (member.child?.exitCode !== null) throw new Error(`${member.name} exited:\n${member.output.slice(-2000)}`);
      const response = await request(`${member.clientUrl}/v3/kv/range`, { method: 'POST', body: JSON.stringify({ key: Buffer.from('health').toString('base64') }), headersTimeout: 1000, bodyTimeout: 1000 });
      const body = (await response.body.json()) as { header?: unknown };
      return response.statusCode === 200 && !!body.header;
    };
    let last = '';
    for (;;) {
      const running = this.members.filter((member) => member.child);
      const answers = await Promise.all(running.map((member) => healthy(member).catch((error: Error) => ((last = `${member.name}: ${error.message}`), false))));
      if (answers.every(Boolean)) return;
      if (Date.now() >= deadline) throw new Error(`etcd cluster not healthy within ${timeoutMs} ms (${last})`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Stops a member (SIGKILL by default: a crash). */
  async stop(index: number, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const member = this.members[index];
    const child = member.child;
    member.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  }

  /** Starts a stopped member again on its ports and data. */
  startMember(index: number): void {
    const member = this.members[index];
    if (member.child) throw new Error(`${member.name} is running`);
    this.spawn(member, 'existing');
  }

  async restart(index: number): Promise<void> {
    await this.stop(index);
    this.startMember(index);
  }

  async destroy(): Promise<void> {
    await Promise.all(this.members.map((_, index) => this.stop(index)));
    await rm(this.root, { recursive: true, force: true });
  }
}
