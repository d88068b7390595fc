import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
// The bench (bench/scenarios/lfs-object-store.ts) uses this helper outside vitest: free-port.ts imports no vitest.
import { freePort } from './free-port.js';

const run = promisify(execFile);

/** Polls until the gateway answers its anonymous bucket listing. */
async function untilAnswering(endpoint: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await fetch(endpoint).then((response) => response.ok, () => false)) return;
    if (Date.now() > deadline) throw new Error(`radosgw at ${endpoint} did not answer within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export interface TestRadosgw {
  /** http://127.0.0.1:<port> of the gateway. */
  readonly endpoint: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Milliseconds from the first mkfs to a gateway answering. */
  readonly startedInMs: number;
  /** A client of the test user (path-style, as the gateway wants). */
  client(): S3Client;
  /** Creates a bucket and returns its name. */
  createBucket(name?: string): Promise<string>;
  /** Stops the gateway only (a store outage); `startGateway` brings it back on the same port. */
  stopGateway(): Promise<void>;
  startGateway(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The settings of ../shared/S3-TESTING-NOTES.md: no cephx (so crc mode for mon clients), one
 * memstore OSD, proposals every 50 ms (radosgw's six pools at start cost many map epochs), a
 * short objecter tick (a gateway otherwise stalls 5 s waiting for an OSD map now and then), every
 * address on loopback, and a garbage collector that frees deleted data within a minute.
 */
function cephConf(dir: string, fsid: string, monPort: number, memstoreBytes: number): string {
  return `[global]
fsid = ${fsid}
mon host = v2:127.0.0.1:${monPort}
auth cluster required = none
auth service required = none
auth client required = none
ms mon client mode = crc
ms bind msgr1 = false
public addr = 127.0.0.1
cluster addr = 127.0.0.1
keyring = /dev/null
run dir = ${dir}/run
admin socket = ${dir}/run/$name.asok
log file = ${dir}/log/$name.log
mon data = ${dir}/mon/$id
mon data avail warn = 1
mon data avail crit = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
paxos propose interval = 0.05
objecter tick interval = 0.5
osd data = ${dir}/osd/$id
osd objectstore = memstore
memstore device bytes = ${memstoreBytes}
osd pool default size = 1
osd pool default min size = 1
osd pool default pg autoscale mode = off
osd pool default pg num = 8
osd pool default pgp num = 8
osd crush chooseleaf type = 0
rgw data = ${dir}/rgw
rgw gc obj min wait = 30
rgw gc processor period = 30
`;
}

/** The `ceph` CLI is a Python script that needs Debian's python3, whatever python3 comes first on PATH. */
const ceph = (conf: string, ...args: string[]) =>
  run('/usr/bin/python3', ['/usr/bin/ceph', '-c', conf, '--connect-timeout', '15', ...args], { timeout: 20_000 });

function daemon(command: string, args: string[], logFile: string): ChildProcess {
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let tail = '';
  child.stderr!.on('data', (chunk: Buffer) => void (tail = (tail + chunk.toString()).slice(-4096)));
  child.on('exit', (code, signal) => {
    if (code !== 0 && code !== null && signal === null) console.error(`${command} exited ${code} (log ${logFile}):\n${tail}`);
  });
  return child;
}

async function stopChild(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/**
 * A single-node Ceph cluster with a RADOS Gateway, as child processes in a temp dir: one mon, one
 * memstore OSD (RAM, 1 GiB unless `memstoreBytes`; no mgr: S3 needs none), radosgw on a free loopback port, and an S3 user. One per
 * test file (beforeAll); stop() in afterAll.
 */
export async function startRadosgw(options: { memstoreBytes?: number } = {}): Promise<TestRadosgw> {
  const started = Date.now();
  const dir = await mkdtemp(path.join(tmpdir(), 'geoforge-ceph-'));
  for (const sub of ['run', 'log', 'mon/a', 'osd/0', 'rgw']) await mkdir(path.join(dir, sub), { recursive: true });
  const [monPort, rgwPort] = [await freePort(), await freePort()];
  const fsid = randomUUID();
  const conf = path.join(dir, 'ceph.conf');
  await writeFile(conf, cephConf(dir, fsid, monPort, options.memstoreBytes ?? 1024 ** 3));
  const monmap = path.join(dir, 'monmap');
  await run('monmaptool', ['--create', '--fsid', fsid, '--addv', 'a', `[v2:127.0.0.1:${monPort}]`, monmap]);
  await run('ceph-mon', ['-c', conf, '--mkfs', '-i', 'a', '--monmap', monmap]);
  const children: { mon: ChildProcess | null; osd: ChildProcess | null; rgw: ChildProcess | null } = { mon: null, osd: null, rgw: null };
  const stop = async () => {
    await stopChild(children.rgw);
    await stopChild(children.osd);
    await stopChild(children.mon);
    await rm(dir, { recursive: true, force: true });
  };
  const accessKeyId = `AK${randomUUID().replace(/-/g, '').slice(0, 18).toUpperCase()}`;
  const secretAccessKey = randomUUID().replace(/-/g, '');
  const endpoint = `http://127.0.0.1:${rgwPort}`;
  const startGateway = async () => {
    children.rgw = daemon('radosgw', ['-c', conf, '-n', 'client.rgw', '-f', '--rgw-frontends', `beast endpoint=127.0.0.1:${rgwPort}`], path.join(dir, 'log'));
    await untilAnswering(endpoint, 30_000);
  };
  try {
    children.mon = daemon('ceph-mon', ['-c', conf, '-i', 'a', '-f'], path.join(dir, 'log'));
    await ceph(conf, 'osd', 'create');
    await run('ceph-osd', ['-c', conf, '-i', '0', '--mkfs']);
    children.osd = daemon('ceph-osd', ['-c', conf, '-i', '0', '-f'], path.join(dir, 'log'));
    await startGateway();
    await run('radosgw-admin', ['-c', conf, 'user', 'create', '--uid=geoforge', '--display-name=geoforge', `--access-key=${accessKeyId}`, `--secret-key=${secretAccessKey}`], {
      timeout: 30_000,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  const startedInMs = Date.now() - started;
  const client = () =>
    new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
  return {
    endpoint,
    accessKeyId,
    secretAccessKey,
    startedInMs,
    client,
    async createBucket(name = `b-${randomUUID().slice(0, 8)}`) {
      const s3 = client();
      await s3.send(new CreateBucketCommand({ Bucket: name }));
      s3.destroy();
      return name;
    },
    stopGateway: () => stopChild(children.rgw),
    startGateway,
    stop,
  };
}
