import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { runGit } from '../../src/git/cli.js';
import { createBackup } from '../../src/services/backup/create.js';
import { verifyBackup } from '../../src/services/backup/verify.js';
import type { ObjectStoreConfig } from '../../src/storage/object-store.js';
import { migrateBlobs } from '../../src/storage/blob-migration.js';
import { lfsObjectKey, repositoryPath } from '../../src/storage/layout.js';
import { addMembers, createProject, createUsers, type TestUser } from '../helpers/factories.js';
import { startRadosgw, type TestRadosgw } from '../helpers/radosgw.js';
import { startSite, type TestSite } from '../helpers/site.js';

const run = promisify(execFile);
const LFS_TYPE = 'application/vnd.git-lfs+json';
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const basic = (user: TestUser) => `Basic ${Buffer.from(`${user.username}:${user.token}`).toString('base64')}`;

/** One kind's store block, as config.ts would read it, in the test cluster's bucket. */
export function storeConfig(rgw: TestRadosgw, bucket: string, extra: Partial<ObjectStoreConfig> = {}): ObjectStoreConfig {
  return {
    endpoint: rgw.endpoint,
    region: 'us-east-1',
    bucket,
    prefix: '',
    accessKeyId: rgw.accessKeyId,
    secretAccessKey: rgw.secretAccessKey,
    forcePathStyle: true,
    caFile: null,
    proxyDownload: true,
    presignSeconds: 300,
    timeoutMs: 3000,
    ...extra,
  };
}

describe('blobs on an S3 object store (a real radosgw)', () => {
  let rgw: TestRadosgw;
  let s3: S3Client;
  let bucket: string;
  let site: TestSite;
  let owner: TestUser, reporter: TestUser;
  let project: any;

  const keys = async (prefix: string) => ((await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }))).Contents ?? []).map((o) => o.Key!);
  const inBucket = async (key: string) => (await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key })).catch(() => null)) !== null;
  const objectUrl = (oid: string, size?: number) => `${site.url}/${project.path_with_namespace}.git/gitlab-lfs/objects/${oid}${size === undefined ? '' : `/${size}`}`;
  const putLfs = (data: Buffer | AsyncIterable<Buffer>, oid: string, size: number, user = owner) =>
    request(objectUrl(oid, size), { method: 'PUT', headers: { authorization: basic(user), 'content-type': 'application/octet-stream', 'content-length': String(size) }, body: Buffer.isBuffer(data) ? data : Readable.from(data) });
  const batch = (operation: string, objects: { oid: string; size: number }[], user = owner, target = site) =>
    request(`${target.url}/${project.path_with_namespace}.git/info/lfs/objects/batch`, {
      method: 'POST',
      headers: { accept: LFS_TYPE, 'content-type': LFS_TYPE, authorization: basic(user) },
      body: JSON.stringify({ operation, objects }),
    });

  beforeAll(async () => {
    rgw = await startRadosgw();
    console.log(`radosgw started in ${rgw.startedInMs} ms`);
    s3 = rgw.client();
    bucket = await rgw.createBucket();
    const stores = { lfs: storeConfig(rgw, bucket), uploads: storeConfig(rgw, bucket), artifacts: storeConfig(rgw, bucket) };
    site = await startSite({ objectStores: stores });
    [owner, reporter] = await createUsers(site, 2);
    project = await createProject(site, { visibility: 'private' }, owner.token);
    await addMembers(site, 'projects', project.id, [[reporter, 20]], owner.token);
  });
  afterAll(async () => {
    await site?.stop();
    s3?.destroy();
    await rgw?.stop();
  });

  it('the test cluster stores, returns and deletes an object', async () => {
    const scratch = await rgw.createBucket();
    await s3.send(new PutObjectCommand({ Bucket: scratch, Key: 'a/b', Body: 'hello' }));
    const got = await s3.send(new GetObjectCommand({ Bucket: scratch, Key: 'a/b' }));
    expect(await got.Body!.transformToString()).toBe('hello');
    await s3.send(new DeleteObjectCommand({ Bucket: scratch, Key: 'a/b' }));
    await expect(s3.send(new GetObjectCommand({ Bucket: scratch, Key: 'a/b' }))).rejects.toMatchObject({ name: 'NoSuchKey' });
  });

  it('LFS objects are written to the bucket (multipart past one part), checked first, and read through the site', async () => {
    const big = randomBytes(9 * 1024 * 1024 + 123);
    const oid = sha256(big);
    const put = await putLfs(big, oid, big.length);
    expect(put.statusCode).toBe(200);
    await put.body.text();
    expect(await inBucket(lfsObjectKey(oid))).toBe(true);
    expect(existsSync(path.join(site.dataDir, lfsObjectKey(oid)))).toBe(false);

    const answer = await batch('download', [{ oid, size: big.length }], reporter);
    const body = (await answer.body.json()) as any;
    expect(body.objects[0].actions.download.href).toBe(objectUrl(oid));
    const got = await request(objectUrl(oid), { headers: { authorization: basic(reporter) } });
    expect(got.statusCode).toBe(200);
    expect(got.headers['content-length']).toBe(String(big.length));
    expect(sha256(Buffer.from(await got.body.arrayBuffer()))).toBe(oid);

    // A body that is not the declared object: 422, no object, no row.
    const other = randomBytes(1000);
    const wrongOid = sha256(randomBytes(1000));
    const refused = await putLfs(other, wrongOid, other.length);
    expect(refused.statusCode).toBe(422);
    await refused.body.text();
    expect(await inBucket(lfsObjectKey(wrongOid))).toBe(false);
    expect(site.site.db.prepare('SELECT 1 FROM lfs_objects WHERE oid = ?').get(wrongOid)).toBeUndefined();
    // The same for a large one, past the multipart threshold.
    const bigWrong = randomBytes(9 * 1024 * 1024);
    const bigWrongOid = sha256(randomBytes(16));
    const refusedBig = await putLfs(bigWrong, bigWrongOid, bigWrong.length);
    expect(refusedBig.statusCode).toBe(422);
    await refusedBig.body.text();
    expect(await inBucket(lfsObjectKey(bigWrongOid))).toBe(false);
  });

  it('uploads are written, listed, read and deleted with their project', async () => {
    const doomed = await createProject(site, { visibility: 'public' }, owner.token);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(Buffer.from('hello object store\n'))]), 'notes.txt');
    const uploaded = await site.api(`/projects/${doomed.id}/uploads`, { method: 'POST', form, as: owner.token });
    expect(uploaded.status).toBe(201);
    const listed = await keys(`uploads/${doomed.id}/`);
    expect(listed).toEqual([`uploads/${doomed.id}${uploaded.body.url.slice('/uploads'.length)}`]);
    const got = await request(`${site.url}/${doomed.path_with_namespace}${uploaded.body.url}`);
    expect(got.statusCode).toBe(200);
    expect(await got.body.text()).toBe('hello object store\n');
    expect((await site.api(`/projects/${doomed.id}`, { method: 'DELETE', as: owner.token })).status).toBe(202);
    expect(await keys(`uploads/${doomed.id}/`)).toEqual([]);
  });

  it('job artifacts are written, read and deleted', async () => {
    const gitDir = repositoryPath(site.dataDir, project.id);
    const tree = (await runGit(['--git-dir', gitDir, 'mktree'])).stdout.trim();
    const env = { GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.com' };
    const sha = (await runGit(['--git-dir', gitDir, 'commit-tree', tree, '-m', 'c'], { env })).stdout.trim();
    await runGit(['--git-dir', gitDir, 'update-ref', 'refs/heads/master', sha]);
    expect((await site.api(`/projects/${project.id}/statuses/${sha}`, { method: 'POST', body: { state: 'success', name: 'build' }, as: owner.token })).status).toBe(201);
    const job = (await site.api(`/projects/${project.id}/jobs`, { as: owner.token })).body[0];
    const url = `/projects/${project.id}/jobs/${job.id}/artifacts`;
    const content = randomBytes(70_000);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(content)]), 'artifacts.zip');
    expect((await site.api(url, { method: 'POST', form, as: owner.token })).status).toBe(201);
    const key = `artifacts/${project.id}/${job.id}/artifacts.zip`;
    expect(await keys(`artifacts/${project.id}/`)).toEqual([key]);
    const got = await request(`${site.url}/api/v4${url}`, { headers: { 'private-token': reporter.token } });
    expect(got.statusCode).toBe(200);
    expect(Buffer.from(await got.body.arrayBuffer()).equals(content)).toBe(true);
    expect((await site.api(url, { method: 'DELETE', as: owner.token })).status).toBe(204);
    expect(await keys(`artifacts/${project.id}/`)).toEqual([]);
  });

  it('a store stopped mid-upload leaves nothing visible: 503 with Retry-After, no object, no row; the rest of the API serves', async () => {
    const data = randomBytes(12 * 1024 * 1024);
    const oid = sha256(data);
    async function* slowBody() {
      yield data.subarray(0, 9 * 1024 * 1024);
      // One part is on its way to the store when it stops.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await rgw.stopGateway();
      yield data.subarray(9 * 1024 * 1024);
    }
    const put = await putLfs(slowBody(), oid, data.length).catch((error: Error) => error);
    if (!(put instanceof Error)) {
      expect(put.statusCode).toBe(503);
      expect(Number(put.headers['retry-after'])).toBeGreaterThan(0);
      expect(((await put.body.json()) as any).message).toMatch(/^503 Service Unavailable: the lfs object store/);
    }
    expect(site.site.db.prepare('SELECT 1 FROM lfs_objects WHERE oid = ?').get(oid)).toBeUndefined();
    // While it is down: blob operations answer 503, everything else serves.
    const small = Buffer.from('tiny');
    const down = await putLfs(small, sha256(small), small.length);
    expect(down.statusCode).toBe(503);
    expect(down.headers['retry-after']).toBe('30');
    await down.body.text();
    expect((await site.api(`/projects/${project.id}`, { as: owner.token })).status).toBe(200);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(small)]), 'x.txt');
    const upload = await site.api(`/projects/${project.id}/uploads`, { method: 'POST', form, as: owner.token });
    expect(upload.status).toBe(503);
    expect(upload.body.message).toMatch(/^503 Service Unavailable: the uploads object store/);
    const metrics = await (await fetch(`${site.url}/-/metrics`)).text();
    expect(metrics).toMatch(/geoforge_object_store_errors_total\{kind="lfs",op="put"\} [1-9]/);
    expect(metrics).toMatch(/geoforge_object_store_up\{kind="lfs"\} 0/);
    await rgw.startGateway();
    expect(await inBucket(lfsObjectKey(oid))).toBe(false);
    expect(site.site.db.prepare('SELECT 1 FROM lfs_objects WHERE oid = ?').get(oid)).toBeUndefined();
  });

  it('with proxyDownload false, downloads go to presigned URLs, refused once expired', async () => {
    const presigning = await startSite({ objectStores: { lfs: storeConfig(rgw, bucket, { proxyDownload: false, presignSeconds: 2 }) } });
    try {
      // The same project rows are not here: this site has its own database; its own project and object.
      const [user] = await createUsers(presigning, 1);
      const own = await createProject(presigning, { visibility: 'private' }, user!.token);
      const data = randomBytes(5000);
      const oid = sha256(data);
      const url = `${presigning.url}/${own.path_with_namespace}.git/gitlab-lfs/objects/${oid}`;
      const put = await request(`${url}/${data.length}`, { method: 'PUT', headers: { authorization: basic(user!), 'content-length': String(data.length) }, body: data });
      expect(put.statusCode).toBe(200);
      await put.body.text();
      const answer = await request(`${presigning.url}/${own.path_with_namespace}.git/info/lfs/objects/batch`, {
        method: 'POST',
        headers: { accept: LFS_TYPE, 'content-type': LFS_TYPE, authorization: basic(user!) },
        body: JSON.stringify({ operation: 'download', objects: [{ oid, size: data.length }] }),
      });
      const action = ((await answer.body.json()) as any).objects[0].actions.download;
      expect(action.href.startsWith(`${rgw.endpoint}/${bucket}/${lfsObjectKey(oid)}?`)).toBe(true);
      expect(action.header).toEqual({});
      const direct = await request(action.href);
      expect(sha256(Buffer.from(await direct.body.arrayBuffer()))).toBe(oid);
      // The object route redirects, after the access check: a stranger gets the 404, never a URL.
      const redirected = await request(url, { headers: { authorization: basic(user!) } });
      expect(redirected.statusCode).toBe(302);
      await redirected.body.text();
      expect(redirected.headers.location).toMatch(/X-Amz-Expires=2/);
      const [stranger] = await createUsers(presigning, 1);
      const hidden = await request(url, { headers: { authorization: basic(stranger!) } });
      expect(hidden.statusCode).toBe(404);
      await hidden.body.text();
      await new Promise((resolve) => setTimeout(resolve, 3100));
      const expired = await request(redirected.headers.location as string);
      expect(expired.statusCode).toBe(403);
      await expired.body.text();
    } finally {
      await presigning.stop();
    }
  });

  it('storage migrate moves every blob to the disk and back, verified, while the site serves each one throughout', async () => {
    const own = await rgw.createBucket();
    const stores = { lfs: storeConfig(rgw, own), uploads: storeConfig(rgw, own) };
    const moving = await startSite({ objectStores: stores });
    try {
      const [user] = await createUsers(moving, 1);
      const mine = await createProject(moving, { visibility: 'public' }, user!.token);
      const objects = [randomBytes(3000), randomBytes(9 * 1024 * 1024)].map((data) => ({ data, oid: sha256(data) }));
      const lfsUrl = (oid: string) => `${moving.url}/${mine.path_with_namespace}.git/gitlab-lfs/objects/${oid}`;
      for (const { data, oid } of objects) {
        const put = await request(`${lfsUrl(oid)}/${data.length}`, { method: 'PUT', headers: { authorization: basic(user!), 'content-length': String(data.length) }, body: data });
        expect(put.statusCode).toBe(200);
        await put.body.text();
      }
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(Buffer.from('attached'))]), 'a.txt');
      const upload = (await moving.api(`/projects/${mine.id}/uploads`, { method: 'POST', form, as: user!.token })).body;
      const uploadUrl = `${moving.url}/${mine.path_with_namespace}${upload.url}`;
      // Every blob answers with its bytes, whichever place it is in.
      const everyBlobServed = async () => {
        for (const { oid } of objects) {
          const got = await request(lfsUrl(oid), { headers: { authorization: basic(user!) } });
          expect(sha256(Buffer.from(await got.body.arrayBuffer()))).toBe(oid);
        }
        expect(await (await request(uploadUrl)).body.text()).toBe('attached');
      };
      const bucketKeys = async () => ((await s3.send(new ListObjectsV2Command({ Bucket: own }))).Contents ?? []).map((o) => o.Key!).sort();
      const onDisk = (key: string) => existsSync(path.join(moving.dataDir, key));
      const lfsKeys = objects.map(({ oid }) => lfsObjectKey(oid)).sort();
      expect((await bucketKeys()).filter((key) => key.startsWith('lfs-objects/'))).toEqual(lfsKeys);

      // To the disk, in the site's process, with reads going on all along.
      let reading = true;
      const reads = (async () => {
        let rounds = 0;
        while (reading || rounds === 0) {
          await everyBlobServed();
          rounds++;
        }
        return rounds;
      })();
      const moved = await migrateBlobs(moving.site.ctx.blobs, 'lfs', 'local', () => undefined);
      reading = false;
      expect(await reads).toBeGreaterThan(0);
      expect(moved).toMatchObject({ total: 2, moved: 2, failed: 0, bytes: objects[0]!.data.length + objects[1]!.data.length });
      expect((await bucketKeys()).filter((key) => key.startsWith('lfs-objects/'))).toEqual([]);
      expect(lfsKeys.every(onDisk)).toBe(true);
      await everyBlobServed();

      // Back to the store with the command, beside the running site; uploads too.
      const env = {
        ...process.env,
        GEOFORGE_DATA_DIR: moving.dataDir,
        GEOFORGE_OBJECT_STORES: JSON.stringify({ lfs: { endpoint: rgw.endpoint, bucket: own }, uploads: { endpoint: rgw.endpoint, bucket: own } }),
        GEOFORGE_OBJECT_STORE_ACCESS_KEY_ID: rgw.accessKeyId,
        GEOFORGE_OBJECT_STORE_SECRET_ACCESS_KEY: rgw.secretAccessKey,
      };
      const { stdout } = await run('node', [path.resolve('dist/cli.js'), 'storage', 'migrate', 'lfs', '--to', 'object', '--json'], { env });
      expect(JSON.parse(stdout)).toMatchObject({ kind: 'lfs', to: 'object', total: 2, moved: 2, failed: 0, failures: [] });
      expect((await bucketKeys()).filter((key) => key.startsWith('lfs-objects/'))).toEqual(lfsKeys);
      expect(lfsKeys.some(onDisk)).toBe(false);
      await everyBlobServed();
      const uploadKey = `uploads/${mine.id}${upload.url.slice('/uploads'.length)}`;
      expect((await migrateBlobs(moving.site.ctx.blobs, 'uploads', 'local', () => undefined)).moved).toBe(1);
      expect(onDisk(uploadKey)).toBe(true);
      await everyBlobServed();
      // Run again: nothing left to move.
      expect(await migrateBlobs(moving.site.ctx.blobs, 'uploads', 'local', () => undefined)).toMatchObject({ total: 0, moved: 0 });
    } finally {
      await moving.stop();
    }
  });

  it('a bad or unreachable store stops the boot with exit code 2 and says why', async () => {
    const cli = path.resolve('dist/cli.js');
    const env = (stores: unknown) => ({
      ...process.env,
      GEOFORGE_DATA_DIR: path.join(site.dataDir, 'boot-check'),
      GEOFORGE_PORT: '0',
      GEOFORGE_OBJECT_STORES: JSON.stringify(stores),
      GEOFORGE_OBJECT_STORE_ACCESS_KEY_ID: rgw.accessKeyId,
      GEOFORGE_OBJECT_STORE_SECRET_ACCESS_KEY: rgw.secretAccessKey,
    });
    const missingBucket = await run('node', [cli, 'serve'], { env: env({ lfs: { endpoint: rgw.endpoint, bucket: 'no-such-bucket' } }) }).catch((error) => error);
    expect(missingBucket.code).toBe(2);
    expect(missingBucket.stderr).toMatch(/geoforge: objectStores: the lfs object store failed on check.*bucket "no-such-bucket"/);
    // What the CLI turns into exit 2 for a malformed block (a ConfigError), checked without a process each.
    const load = (stores: unknown, extra: Record<string, string> = {}) => () => loadConfig({ env: { GEOFORGE_OBJECT_STORES: JSON.stringify(stores), ...extra } });
    expect(load({ wiki: { endpoint: rgw.endpoint, bucket } })).toThrow(new ConfigError('GEOFORGE_OBJECT_STORES: unknown blob kind "wiki" (expected lfs, uploads, artifacts)'));
    expect(load({ lfs: { endpoint: 'ftp://x', bucket } })).toThrow(/GEOFORGE_OBJECT_STORES.lfs.endpoint: expected an http or https URL/);
    expect(load({ lfs: { endpoint: rgw.endpoint } })).toThrow(/lfs.bucket: expected a string \(required\)/);
    expect(load({ lfs: { endpoint: rgw.endpoint, bucket } })).toThrow(/lfs: credentials required/);
    expect(load({ lfs: { endpoint: rgw.endpoint, bucket, proxyDownload: 'no' } }, { GEOFORGE_OBJECT_STORE_ACCESS_KEY_ID: 'a', GEOFORGE_OBJECT_STORE_SECRET_ACCESS_KEY: 'b' })).toThrow(/lfs.proxyDownload: expected true or false/);
    const loaded = load({ lfs: { endpoint: `${rgw.endpoint}/`, bucket, proxyDownload: false } }, { GEOFORGE_OBJECT_STORE_ACCESS_KEY_ID: 'a', GEOFORGE_OBJECT_STORE_SECRET_ACCESS_KEY: 'b' })();
    expect(loaded.objectStores).toEqual({ lfs: { ...storeConfig(rgw, bucket, { proxyDownload: false, timeoutMs: 10_000 }), accessKeyId: 'a', secretAccessKey: 'b' } });
  });

  it('a backup records the blobs kept in the store, and its verify finds one gone from the bucket', async () => {
    const output = path.join(site.dataDir, 'backup-out');
    const manifest = await createBackup(site.site.ctx.config, output, { version: 'test' });
    const stored = manifest.object_stored!;
    expect(stored.map((kind) => kind.kind)).toEqual(['lfs', 'uploads', 'artifacts']);
    const lfs = stored.find((kind) => kind.kind === 'lfs')!;
    expect(lfs).toMatchObject({ endpoint: rgw.endpoint, bucket, prefix: '' });
    expect(lfs.blobs.map((blob) => blob.key).sort()).toEqual((await keys('lfs-objects/')).sort());
    expect(lfs.blobs.length).toBeGreaterThan(0);
    expect(manifest.files.filter((file) => file.restore_to.startsWith('lfs-objects/'))).toEqual([]);
    expect((await verifyBackup(output, site.site.ctx.blobs)).problems).toEqual([]);
    const gone = lfs.blobs[0]!.key;
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: gone }));
    expect((await verifyBackup(output, site.site.ctx.blobs)).problems).toEqual([`${gone}: missing from bucket ${bucket}`]);
  });
});
