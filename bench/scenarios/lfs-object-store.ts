import { createReadStream, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { request } from 'undici';
import { startRadosgw } from '../../test/helpers/radosgw.js';
import { ROOT_TOKEN, startGeoforge } from '../lib/geoforge.js';
import type { Scenario } from '../lib/scenario.js';
import { tempDir } from '../lib/scope.js';
import { roundSeconds, sized } from '../lib/settings.js';
import { median } from '../lib/stats.js';
import { createProject } from './git-clone.js';
import { writeRandomFile, type RandomFile } from './lfs-transfer.js';

const MIB = 1024 * 1024;
const OBJECT_MIB = sized(64, 4);
const LFS_UPLOAD_MIB = sized(256, 8);
const GOAL = 0.8;
const RSS_GOAL_MIB = 64;

const rssOf = (pid: number): number => Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

/** Issue 30: LFS upload and download through a site whose LFS objects live in an S3 bucket (Ceph RADOS Gateway), against the same transfers made directly with the S3 client. */
export const lfsObjectStore: Scenario = {
  name: 'lfs-object-store',
  summary: `LFS PUT/GET of a ${OBJECT_MIB} MiB object through a site on radosgw vs the S3 client direct; presigned download (proxyDownload false); RSS during a ${LFS_UPLOAD_MIB} MiB upload`,
  async run(scope) {
    const reps = Math.max(2, Math.ceil(roundSeconds() / 3));
    const dir = await tempDir(scope, 'lfs-object-store');
    // Memstore keeps replaced objects until the gateway's garbage collection: room for every round's copies.
    const rgw = await startRadosgw({ memstoreBytes: 4 * 1024 ** 3 });
    scope.defer(() => rgw.stop());
    const s3 = rgw.client();
    scope.defer(() => s3.destroy());
    const bucket = await rgw.createBucket();
    const directBucket = await rgw.createBucket();
    const env = (proxyDownload: boolean) => ({
      GEOFORGE_OBJECT_STORES: JSON.stringify({ lfs: { endpoint: rgw.endpoint, bucket, proxyDownload } }),
      GEOFORGE_OBJECT_STORE_ACCESS_KEY_ID: rgw.accessKeyId,
      GEOFORGE_OBJECT_STORE_SECRET_ACCESS_KEY: rgw.secretAccessKey,
    });
    const object = await writeRandomFile(path.join(dir, 'object.bin'), OBJECT_MIB * MIB);
    const big = await writeRandomFile(path.join(dir, 'big.bin'), LFS_UPLOAD_MIB * MIB);
    const proxied = await startGeoforge(scope, path.join(dir, 'proxied'), path.join(dir, 'proxied.log'), [], env(true));
    const presigning = await startGeoforge(scope, path.join(dir, 'presigning'), path.join(dir, 'presigning.log'), [], env(false));
    const authorization = `Basic ${Buffer.from(`root:${ROOT_TOKEN}`).toString('base64')}`;
    const lfsBase = async (url: string) => `${url}/${(await createProject(url, 'bench-lfs-s3')).path_with_namespace}.git`;
    const [proxiedRepo, presigningRepo] = [await lfsBase(proxied.url), await lfsBase(presigning.url)];

    const timed = async (work: () => Promise<number>): Promise<number> => {
      const started = performance.now();
      const bytes = await work();
      return bytes / MIB / ((performance.now() - started) / 1000);
    };
    const drain = async (body: AsyncIterable<unknown>) => {
      let bytes = 0;
      for await (const chunk of body) bytes += (chunk as Buffer).length;
      return bytes;
    };
    const siteUpload = (repo: string, file: RandomFile) => async () => {
      const response = await request(`${repo}/gitlab-lfs/objects/${file.oid}/${file.size}`, {
        method: 'PUT',
        headers: { authorization, 'content-type': 'application/octet-stream', 'content-length': String(file.size) },
        body: createReadStream(file.file, { highWaterMark: MIB }),
      });
      const text = await response.body.text();
      if (response.statusCode !== 200) throw new Error(`LFS upload: ${response.statusCode} ${text}`);
      return file.size;
    };
    const siteDownload = (repo: string) => async () => {
      const response = await request(`${repo}/gitlab-lfs/objects/${object.oid}`, { headers: { authorization } });
      const bytes = await drain(response.body);
      if (response.statusCode !== 200 || bytes !== object.size) throw new Error(`LFS download: ${response.statusCode}, ${bytes} bytes`);
      return bytes;
    };
    const presignedDownload = async () => {
      const answer = await request(`${presigningRepo}/info/lfs/objects/batch`, {
        method: 'POST',
        headers: { authorization, accept: 'application/vnd.git-lfs+json', 'content-type': 'application/vnd.git-lfs+json' },
        body: JSON.stringify({ operation: 'download', objects: [{ oid: object.oid, size: object.size }] }),
      });
      const href = ((await answer.body.json()) as { objects: { actions: { download: { href: string } } }[] }).objects[0]!.actions.download.href;
      const response = await request(href);
      const bytes = await drain(response.body);
      if (response.statusCode !== 200 || bytes !== object.size) throw new Error(`presigned download: ${response.statusCode}, ${bytes} bytes`);
      return bytes;
    };
    // The limit: the S3 client itself, with the same part size and parallelism as the site's writes.
    const directUpload = async () => {
      await new Upload({ client: s3, params: { Bucket: directBucket, Key: 'object.bin', Body: createReadStream(object.file, { highWaterMark: MIB }) }, partSize: 8 * MIB, queueSize: 3 }).done();
      return object.size;
    };
    const directDownload = async () => drain((await s3.send(new GetObjectCommand({ Bucket: directBucket, Key: 'object.bin' }))).Body as AsyncIterable<Buffer>);

    // RSS of the site while a large upload streams through it to the store.
    await sleep(300);
    const idle = rssOf(proxied.pid);
    let peak = idle;
    const sampler = setInterval(() => void (peak = Math.max(peak, rssOf(proxied.pid))), 50);
    const bigRate = await timed(siteUpload(proxiedRepo, big)).finally(() => clearInterval(sampler));
    const growth = (peak - idle) / MIB;

    // Warm-up: the object in place on both sites and direct.
    await siteUpload(proxiedRepo, object)();
    await siteUpload(presigningRepo, object)();
    await directUpload();
    const rates: Record<string, number[]> = { siteUp: [], siteDown: [], directUp: [], directDown: [], presigned: [] };
    for (let i = 0; i < reps; i++) {
      rates.directUp!.push(await timed(directUpload));
      rates.siteUp!.push(await timed(siteUpload(proxiedRepo, object)));
      rates.directDown!.push(await timed(directDownload));
      rates.siteDown!.push(await timed(siteDownload(proxiedRepo)));
      rates.presigned!.push(await timed(presignedDownload));
    }
    const m = (key: string) => median(rates[key]!);
    const up = m('siteUp') / m('directUp');
    const down = m('siteDown') / m('directDown');
    const ratio = Math.min(up, down);
    const details = [
      `upload ${m('siteUp').toFixed(1)} MiB/s vs direct ${m('directUp').toFixed(1)} (${up.toFixed(2)}x)`,
      `download ${m('siteDown').toFixed(1)} MiB/s vs direct ${m('directDown').toFixed(1)} (${down.toFixed(2)}x)`,
      `presigned download (proxyDownload false) ${m('presigned').toFixed(1)} MiB/s (${(m('presigned') / m('directDown')).toFixed(2)}x direct)`,
      `goal >= ${GOAL} ${ratio >= GOAL ? 'met' : 'NOT met'}`,
      `RSS growth ${growth.toFixed(1)} MiB during a ${LFS_UPLOAD_MIB} MiB upload at ${bigRate.toFixed(1)} MiB/s (goal < ${RSS_GOAL_MIB} MiB ${growth < RSS_GOAL_MIB ? 'pass' : 'FAIL'})`,
      `radosgw memstore started in ${rgw.startedInMs} ms`,
      `${reps} x ${OBJECT_MIB} MiB per transfer`,
    ];
    return { ratio, details: details.join(', ') };
  },
};
