import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { LOAD_CORE, SERVER_CORE, canPin, cpuNoise, sampleCpu } from '../lib/cpu.js';
import { ROOT_TOKEN, startGeoforge } from '../lib/geoforge.js';
import { gitClient, gitClientEnv, withCredentials } from '../lib/git.js';
import { interleave } from '../lib/rounds.js';
import type { Scenario } from '../lib/scenario.js';
import { tempDir } from '../lib/scope.js';
import { freePort, startServer } from '../lib/server.js';
import { roundSeconds, sized } from '../lib/settings.js';
import { median } from '../lib/stats.js';
import { createProject } from './git-clone.js';

const MIB = 1024 * 1024;
const OBJECT_MIB = sized(64, 4);
const PUSH_MIB = sized(200, 8);
const LFS_UPLOAD_MIB = sized(256, 8);
const ROUNDS = sized(3, 1);
const GOAL = 0.8;
/** BENCHMARKS.md scenario 9: RSS growth under streaming stays below this. */
const RSS_GOAL_MIB = 64;
const RSS_SAMPLE_MS = 50;
const NOISY_PERCENT = 10;

const TARGETS = ['upload', 'download', 'static', 'staticPut'] as const;
type Target = (typeof TARGETS)[number];
const LABELS: Record<Target, string> = { upload: 'geoforge LFS PUT', download: 'geoforge LFS GET', static: 'node:http static GET', staticPut: 'node:http hash+fsync PUT' };

export interface RandomFile {
  readonly file: string;
  readonly size: number;
  readonly oid: string;
}

/** BENCHMARKS.md scenarios 8/9: LFS object upload and download rates vs a static file server, and RSS while streaming. */
export const lfsTransfer: Scenario = {
  name: 'lfs-transfer',
  summary: `LFS PUT/GET of a ${OBJECT_MIB} MiB object vs node:http static download; geoforge RSS during a ${PUSH_MIB} MiB git push and a ${LFS_UPLOAD_MIB} MiB LFS upload`,
  async run(scope) {
    const seconds = roundSeconds();
    /** Transfers of the object per target and round: about seconds / 3 of them. */
    const reps = Math.max(2, Math.ceil(seconds / 3));
    const dir = await tempDir(scope, 'lfs-transfer');
    const dataDir = path.join(dir, 'data');
    const env = await gitClientEnv(dir);
    const object = await writeRandomFile(path.join(dir, 'object.bin'), OBJECT_MIB * MIB);
    const big = await writeRandomFile(path.join(dir, 'big-lfs.bin'), LFS_UPLOAD_MIB * MIB);

    const geoforge = await startGeoforge(scope, dataDir, path.join(dir, 'geoforge.log'));
    const staticPort = await freePort();
    const staticServer = await startServer(scope, {
      name: 'static',
      nodeArgs: ['--import', 'tsx', 'bench/baselines/static-file.ts', object.file, String(staticPort)],
      port: staticPort,
      readyPath: '/ready',
      logFile: path.join(dir, 'static.log'),
    });
    const project = await createProject(geoforge.url, 'bench-lfs');
    const lfsBase = `${geoforge.url}/${project.path_with_namespace}.git/gitlab-lfs/objects`;
    const authorization = `Basic ${Buffer.from(`root:${ROOT_TOKEN}`).toString('base64')}`;

    const upload = async (file: RandomFile, url = `${lfsBase}/${file.oid}/${file.size}`): Promise<number> => {
      const started = performance.now();
      const response = await request(url, {
        method: 'PUT',
        headers: { authorization, 'content-type': 'application/octet-stream', 'content-length': String(file.size) },
        body: createReadStream(file.file, { highWaterMark: MIB }),
      });
      const text = await response.body.text();
      if (response.statusCode !== 200) throw new Error(`LFS upload: ${response.statusCode} ${text}`);
      return performance.now() - started;
    };
    const download = async (url: string, headers: Record<string, string>): Promise<number> => {
      const started = performance.now();
      const response = await request(url, { headers });
      let bytes = 0;
      for await (const chunk of response.body) bytes += (chunk as Buffer).length;
      if (response.statusCode !== 200 || bytes !== object.size) throw new Error(`download ${url}: ${response.statusCode}, ${bytes} of ${object.size} bytes`);
      return performance.now() - started;
    };
    const transfer: Record<Target, () => Promise<number>> = {
      upload: () => upload(object),
      download: () => download(`${lfsBase}/${object.oid}`, { authorization }),
      static: () => download(`${staticServer.url}/object.bin`, {}),
      staticPut: () => upload(object, `${staticServer.url}/upload`),
    };

    const pids = [process.pid, geoforge.pid, staticServer.pid];
    const before = sampleCpu(pids, true);

    // Memory first, on a server that has only answered small requests (no large body yet): idle RSS, then the peaks.
    for (let i = 0; i < 20; i++) {
      const response = await request(`${geoforge.url}/api/v4/projects/${project.id}`, { headers: { 'private-token': ROOT_TOKEN } });
      await response.body.text();
    }
    await sleep(500);
    const idle = median(await sampleRss(geoforge.pid, 1000));
    const push = await prepareBigCommit(dir, env);
    const pushPeak = await peakRssDuring(geoforge.pid, () => push(withCredentials(`${geoforge.url}/${project.path_with_namespace}.git`, 'root', ROOT_TOKEN)));
    const lfsPeak = await peakRssDuring(geoforge.pid, () => upload(big));
    const mib = (bytes: number) => bytes / MIB;
    console.log(`geoforge RSS idle ${mib(idle).toFixed(1)} MiB, peak during ${PUSH_MIB} MiB git push ${mib(pushPeak.peak).toFixed(1)} MiB (${(pushPeak.ms / 1000).toFixed(1)} s), during ${LFS_UPLOAD_MIB} MiB LFS upload ${mib(lfsPeak.peak).toFixed(1)} MiB (${(lfsPeak.ms / 1000).toFixed(1)} s)`);

    // Warm-up; the first upload also links the object to the project for the downloads.
    for (const target of TARGETS) await transfer[target]();
    const rounds = await interleave(TARGETS, ROUNDS, async (target, round) => {
      let total = 0;
      for (let i = 0; i < reps; i++) total += await transfer[target]();
      const rate = (reps * object.size) / MIB / (total / 1000);
      console.log(`round ${round} ${LABELS[target].padEnd(22)} ${rate.toFixed(1)} MiB/s (${reps} x ${OBJECT_MIB} MiB)`);
      return rate;
    });
    const noise = cpuNoise(before, sampleCpu(pids, true));

    const rate = (target: Target) => median(rounds[target]);
    const roundRatios = rounds.static.map((staticRate, i) => Math.min(rounds.upload[i], rounds.download[i]) / staticRate);
    const pushGrowth = mib(pushPeak.peak - idle);
    const lfsGrowth = mib(lfsPeak.peak - idle);
    const rssPass = Math.max(pushGrowth, lfsGrowth) < RSS_GOAL_MIB;
    const noisy = noise.stealPercent > NOISY_PERCENT || noise.otherPercent > NOISY_PERCENT;
    const details = [
      `upload ${rate('upload').toFixed(1)} MiB/s (${(rate('upload') / rate('static')).toFixed(2)}x)`,
      `download ${rate('download').toFixed(1)} MiB/s (${(rate('download') / rate('static')).toFixed(2)}x)`,
      `static ${rate('static').toFixed(1)} MiB/s`,
      // Information: an upload's equal-work limit (hash, write, fsync, rename), which a download's rate does not bound.
      `equal-work static PUT ${rate('staticPut').toFixed(1)} MiB/s (upload ${(rate('upload') / rate('staticPut')).toFixed(2)}x of it)`,
      `rounds ${roundRatios.map((ratio) => ratio.toFixed(2)).join('/')}`,
      `goal >= ${GOAL} met in ${roundRatios.filter((ratio) => ratio >= GOAL).length}/${ROUNDS} rounds`,
      `RSS idle ${mib(idle).toFixed(1)} MiB, growth ${pushGrowth.toFixed(1)} MiB during ${PUSH_MIB} MiB git push, ${lfsGrowth.toFixed(1)} MiB during ${LFS_UPLOAD_MIB} MiB LFS upload (goal < ${RSS_GOAL_MIB} MiB ${rssPass ? 'pass' : 'FAIL'})`,
      `steal ${noise.stealPercent.toFixed(1)}%`,
      `other processes ${noise.otherPercent.toFixed(1)}% CPU`,
      `noisy ${noisy ? 'yes' : 'no'}`,
      canPin ? `servers on core ${SERVER_CORE}, clients on core ${LOAD_CORE}` : 'unpinned (no taskset or < 2 cores)',
      `${reps} x ${OBJECT_MIB} MiB per target x${ROUNDS}`,
    ];
    return { ratio: Math.min(rate('upload'), rate('download')) / rate('static'), details: details.join(', ') };
  },
};

/** `size` random (incompressible) bytes written to `file`, with their sha256 (the LFS oid). */
export async function writeRandomFile(file: string, size: number): Promise<RandomFile> {
  const hash = createHash('sha256');
  const handle = await open(file, 'w');
  try {
    for (let written = 0; written < size; written += MIB) {
      const chunk = randomBytes(Math.min(MIB, size - written));
      hash.update(chunk);
      await handle.write(chunk);
    }
  } finally {
    await handle.close();
  }
  return { file, size, oid: hash.digest('hex') };
}

/** VmRSS of a process in bytes, from /proc/<pid>/status; null where /proc does not exist. */
function rssOf(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

async function sampleRss(pid: number, forMs: number): Promise<number[]> {
  const samples: number[] = [];
  const deadline = performance.now() + forMs;
  while (performance.now() < deadline) {
    const rss = rssOf(pid);
    if (rss === null) throw new Error(`cannot read /proc/${pid}/status`);
    samples.push(rss);
    await sleep(RSS_SAMPLE_MS);
  }
  return samples;
}

/** The highest RSS of `pid`, sampled every 50 ms while `work` runs (and once after it). */
async function peakRssDuring(pid: number, work: () => Promise<unknown>): Promise<{ peak: number; ms: number }> {
  let peak = rssOf(pid) ?? 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssOf(pid) ?? 0);
  }, RSS_SAMPLE_MS);
  const started = performance.now();
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  const elapsed = performance.now() - started;
  peak = Math.max(peak, rssOf(pid) ?? 0);
  return { peak, ms: elapsed };
}

/**
 * One commit of PUSH_MIB random bytes (four files); resolves to the push of it over smart HTTP.
 * Objects are stored and packed without compression, so the client spends its time sending, not deflating.
 */
async function prepareBigCommit(dir: string, env: Record<string, string>): Promise<(remote: string) => Promise<void>> {
  const work = path.join(dir, 'push');
  await gitClient(['init', '--quiet', '-b', 'master', work], env);
  const parts = 4;
  for (let i = 0; i < parts; i++) await writeRandomFile(path.join(work, `random-${i}.bin`), (PUSH_MIB / parts) * MIB);
  const fast = ['-c', 'core.compression=0', '-c', 'pack.compression=0', '-c', 'core.bigFileThreshold=1m'];
  await gitClient([...fast, 'add', '.'], env, work);
  await gitClient([...fast, 'commit', '--quiet', '-m', `${PUSH_MIB} MiB of random data`], env, work);
  return async (remote) => {
    await gitClient([...fast, 'push', '--quiet', remote, 'HEAD:refs/heads/master'], env, work);
  };
}
