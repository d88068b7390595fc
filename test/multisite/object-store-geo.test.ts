import { createHash, randomBytes } from 'node:crypto';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lfsObjectKey } from '../../src/storage/layout.js';
import { FAST_SYNC_ENV, postFile, registryOf } from '../helpers/geo-blobs.js';
import { ROOT_TOKEN, startCluster, waitFor, type Cluster } from '../helpers/multisite.js';
import { startRadosgw, type TestRadosgw } from '../helpers/radosgw.js';

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const basic = `Basic ${Buffer.from(`root:${ROOT_TOKEN}`).toString('base64')}`;

describe('geo with object storage: a secondary syncs each blob into its own bucket', () => {
  let rgw: TestRadosgw;
  let s3: S3Client;
  let cluster: Cluster;
  let primaryBucket: string;
  let secondaryBucket: string;

  const env = (bucket: string) => ({
    GEOFORGE_OBJECT_STORES: JSON.stringify(Object.fromEntries(['lfs', 'uploads', 'artifacts'].map((kind) => [kind, { endpoint: rgw.endpoint, bucket }]))),
    GEOFORGE_OBJECT_STORE_ACCESS_KEY_ID: rgw.accessKeyId,
    GEOFORGE_OBJECT_STORE_SECRET_ACCESS_KEY: rgw.secretAccessKey,
  });
  const keysOf = async (bucket: string) => ((await s3.send(new ListObjectsV2Command({ Bucket: bucket }))).Contents ?? []).map((o) => o.Key!).sort();
  const bytesOf = async (bucket: string, key: string) => Buffer.from(await (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body!.transformToByteArray());

  beforeAll(async () => {
    rgw = await startRadosgw();
    s3 = rgw.client();
    [primaryBucket, secondaryBucket] = [await rgw.createBucket(), await rgw.createBucket()];
    cluster = await startCluster(1, { primaryEnv: env(primaryBucket), secondaryEnv: { ...FAST_SYNC_ENV, GEOFORGE_GEO_REVERIFY_SECONDS: '1', ...env(secondaryBucket) } });
  }, 120_000);
  afterAll(async () => {
    await cluster?.destroy();
    s3?.destroy();
    await rgw?.stop();
  });

  it('syncs LFS objects, uploads and artifacts into the secondary bucket, verified; a corrupted copy is found and synced again; deletes follow', async () => {
    const { primary } = cluster;
    const secondary = cluster.secondaries[0]!;
    const project = (await primary.api('/projects', { method: 'POST', body: { name: 'stored-blobs', default_branch: 'master' } })).body;
    const data = randomBytes(9 * 1024 * 1024 + 7);
    const oid = sha256(data);
    const put = await fetch(`${primary.url}/${project.path_with_namespace}.git/gitlab-lfs/objects/${oid}/${data.length}`, { method: 'PUT', headers: { authorization: basic }, body: data });
    expect(put.status).toBe(200);
    const note = Buffer.from('an attachment in a bucket\n');
    await postFile(primary, `/projects/${project.id}/uploads`, 'note.txt', note);
    await primary.api(`/projects/${project.id}/repository/files/README.md`, { method: 'POST', body: { branch: 'master', content: 'hi', commit_message: 'c' } });
    const head = (await primary.api(`/projects/${project.id}/repository/branches/master`)).body.commit.id as string;
    expect((await primary.api(`/projects/${project.id}/statuses/${head}`, { method: 'POST', body: { state: 'success', name: 'build' } })).status).toBe(201);
    const job = (await primary.api(`/projects/${project.id}/jobs`)).body[0];
    const archive = randomBytes(70_000);
    await postFile(primary, `/projects/${project.id}/jobs/${job.id}/artifacts`, 'artifacts.zip', archive);

    const fileTypes = ['lfs_object', 'attachment', 'job_artifact'];
    const files = await waitFor(
      () => {
        const rows = registryOf(secondary).filter((row) => fileTypes.includes(row.item_type));
        return rows.length === 3 && rows.every((row) => row.state === 'synced' && row.verified_at) ? rows : null;
      },
      { timeoutMs: 30_000, message: 'three files synced and verified' },
    );
    const primaryKeys = await keysOf(primaryBucket);
    expect(await keysOf(secondaryBucket)).toEqual(primaryKeys);
    expect(primaryKeys).toEqual(files.map((row) => row.path).sort());
    for (const row of files) expect(sha256(await bytesOf(secondaryBucket, row.path))).toBe(row.checksum);
    // The secondary serves the object from its own bucket.
    const got = await fetch(`${secondary.url}/${project.path_with_namespace}.git/gitlab-lfs/objects/${oid}`, { headers: { authorization: basic } });
    expect(got.status).toBe(200);
    expect(sha256(Buffer.from(await got.arrayBuffer()))).toBe(oid);

    // An object overwritten in the secondary's bucket: verification finds it, and the workers fetch it again.
    const lfsRow = files.find((row) => row.item_type === 'lfs_object')!;
    expect(lfsRow.path).toBe(lfsObjectKey(oid));
    await s3.send(new PutObjectCommand({ Bucket: secondaryBucket, Key: lfsRow.path, Body: Buffer.from('corrupted') }));
    await waitFor(
      async () => {
        const now = registryOf(secondary).find((row) => row.id === lfsRow.id)!;
        expect(now).toMatchObject({ state: 'synced', checksum: oid });
        expect(now.last_successful_sync_at).toBeGreaterThan(lfsRow.last_successful_sync_at);
        expect(sha256(await bytesOf(secondaryBucket, lfsRow.path))).toBe(oid);
        return true;
      },
      { timeoutMs: 20_000, message: 'the corrupted object found and synced again' },
    );

    // A delete on the primary removes the secondary's copy from its bucket.
    expect((await primary.api(`/projects/${project.id}/jobs/${job.id}/artifacts`, { method: 'DELETE' })).status).toBe(204);
    const artifactRow = files.find((row) => row.item_type === 'job_artifact')!;
    await waitFor(async () => !(await keysOf(secondaryBucket)).includes(artifactRow.path), { timeoutMs: 15_000, message: 'artifact removed from the secondary bucket' });
    expect(await keysOf(primaryBucket)).not.toContain(artifactRow.path);
  });
});
