import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRadosgw, type TestRadosgw } from '../helpers/radosgw.js';

describe('blobs on an S3 object store (a real radosgw)', () => {
  let rgw: TestRadosgw;
  let s3: S3Client;

  beforeAll(async () => {
    rgw = await startRadosgw();
    s3 = rgw.client();
    console.log(`radosgw started in ${rgw.startedInMs} ms`);
  });
  afterAll(async () => {
    s3?.destroy();
    await rgw?.stop();
  });

  it('the test cluster stores, returns and deletes an object', async () => {
    const bucket = await rgw.createBucket();
    await s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'a/b', Body: 'hello' }));
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'a/b' }));
    expect(await got.Body!.transformToString()).toBe('hello');
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: 'a/b' }));
    await expect(s3.send(new GetObjectCommand({ Bucket: bucket, Key: 'a/b' }))).rejects.toMatchObject({ name: 'NoSuchKey' });
  });
});
