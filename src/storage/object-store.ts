import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { Agent as HttpsAgent } from 'node:https';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { BlobMismatchError, StoreUnavailableError, type BlobExpectation, type BlobKind, type BlobStore, type OpenedBlob } from './blob-store.js';

/** One kind's object store, as configured (config.ts validates it). */
export interface ObjectStoreConfig {
  readonly endpoint: string;
  readonly region: string;
  readonly bucket: string;
  /** Prepended to every key (`''` for none): several sites or kinds may share a bucket. */
  readonly prefix: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  /** Path-style addressing (MinIO, Ceph); virtual-hosted style for AWS otherwise. */
  readonly forcePathStyle: boolean;
  /** A CA bundle (PEM) to trust for an https endpoint; null for the system's. */
  readonly caFile: string | null;
  /** Serve downloads through the site (true) or redirect clients to a presigned URL (false). */
  readonly proxyDownload: boolean;
  /** How long a presigned URL stays valid. */
  readonly presignSeconds: number;
  /** A request with no progress for this long fails (the store counts as down). */
  readonly timeoutMs: number;
}

/**
 * Bytes per part of a multipart upload: the parts in flight are the memory an upload costs
 * (PART_BYTES * (PARTS_IN_FLIGHT + 1) at most), and objects below one part go in one PUT.
 */
const PART_BYTES = 8 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

/** What the store reports for a key it does not have. */
const isMissing = (error: unknown): boolean => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
};

/** Reports each failed store call and each answered one (the up gauge and the error counter). */
export interface StoreHealth {
  failed(kind: BlobKind, op: string): void;
  answered(kind: BlobKind): void;
}

/**
 * An S3 bucket (AWS, Ceph RADOS Gateway, MinIO, ...). A write streams as a multipart upload that is
 * completed only once the bytes hashed on the way match what is expected, else aborted: an object
 * that does not match never becomes visible, and a write cut off midway leaves only an incomplete
 * upload, which no read sees (a bucket lifecycle rule for incomplete uploads clears those).
 */
export class S3BlobStore implements BlobStore {
  readonly location = 'object' as const;
  private readonly s3: S3Client;

  constructor(
    readonly kind: BlobKind,
    readonly config: ObjectStoreConfig,
    private readonly health: StoreHealth,
  ) {
    const ca = config.caFile ? readFileSync(config.caFile) : undefined;
    this.s3 = new S3Client({
      endpoint: config.endpoint,
      region: config.region,
      forcePathStyle: config.forcePathStyle,
      credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
      maxAttempts: 2,
      // The sha256 of each write is checked by the site itself; no extra CRC per part (older gateways lack it).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: {
        connectionTimeout: config.timeoutMs,
        requestTimeout: config.timeoutMs,
        ...(ca ? { httpsAgent: new HttpsAgent({ ca, keepAlive: true }) } : {}),
      },
    });
  }

  private key(key: string): string {
    return this.config.prefix + key;
  }

  /** Runs one store call: a missing key is an answer; anything else is the store failing. */
  private async call<T>(op: string, run: () => Promise<T>, missing?: T, notTheStore: (error: unknown) => boolean = () => false): Promise<T> {
    try {
      const result = await run();
      this.health.answered(this.kind);
      return result;
    } catch (error) {
      if (missing !== undefined && isMissing(error)) {
        this.health.answered(this.kind);
        return missing;
      }
      if (error instanceof BlobMismatchError || notTheStore(error)) throw error;
      this.health.failed(this.kind, op);
      throw new StoreUnavailableError(this.kind, op, { cause: error });
    }
  }

  async put(key: string, source: string | AsyncIterable<Buffer> | Iterable<Buffer>, expected: BlobExpectation = {}): Promise<{ sha256: string; size: number }> {
    const Bucket = this.config.bucket;
    const Key = this.key(key);
    const hash = createHash('sha256');
    let size = 0;
    // Chunks are copied into one part buffer at a time: no list of chunks kept, no second copy to join them.
    let part = Buffer.allocUnsafe(PART_BYTES);
    let filled = 0;
    let uploadId: string | null = null;
    const parts: { PartNumber: number; ETag: string }[] = [];
    const inFlight = new Set<Promise<void>>();
    let failure: { error: unknown } | null = null;
    const verify = () => {
      const got = { sha256: hash.digest('hex'), size };
      if ((expected.sha256 !== undefined && got.sha256 !== expected.sha256) || (expected.size !== undefined && got.size !== expected.size)) throw new BlobMismatchError('mismatch', got);
      return got;
    };
    const sendPart = async (body: Buffer) => {
      uploadId ??= (await this.s3.send(new CreateMultipartUploadCommand({ Bucket, Key }))).UploadId!;
      const PartNumber = parts.length + inFlight.size + 1;
      const sending = this.s3
        .send(new UploadPartCommand({ Bucket, Key, UploadId: uploadId, PartNumber, Body: body, ContentLength: body.length }))
        .then((answer) => void parts.push({ PartNumber, ETag: answer.ETag! }), (error: unknown) => void (failure ??= { error }))
        .finally(() => inFlight.delete(sending));
      inFlight.add(sending);
      if (inFlight.size >= PARTS_IN_FLIGHT) await Promise.race(inFlight);
      if (failure) throw failure.error;
    };
    // A source that fails (a client gone mid-upload) is the caller's error, not the store's.
    let sourceFailure: unknown = null;
    const chunks = async function* () {
      try {
        yield* typeof source === 'string' ? (createReadStream(source, { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) : (source as AsyncIterable<Buffer>);
      } catch (error) {
        sourceFailure = error;
        throw error;
      }
    };
    return this.call('put', async () => {
      try {
        for await (const chunk of chunks()) {
          size += chunk.length;
          if (expected.maxBytes !== undefined && size > expected.maxBytes) throw new BlobMismatchError('too_long', null);
          hash.update(chunk);
          for (let offset = 0; offset < chunk.length; ) {
            const copied = chunk.copy(part, filled, offset);
            filled += copied;
            offset += copied;
            if (filled === PART_BYTES) {
              const body = part;
              part = Buffer.allocUnsafe(PART_BYTES);
              filled = 0;
              await sendPart(body);
            }
          }
        }
        if (uploadId === null) {
          // Below one part: the whole object is in hand, checked before the one PUT that makes it visible.
          const got = verify();
          const Body = part.subarray(0, filled);
          await this.s3.send(new PutObjectCommand({ Bucket, Key, Body, ContentLength: Body.length }));
          return got;
        }
        if (filled > 0) await sendPart(part.subarray(0, filled));
        await Promise.all(inFlight);
        if (failure) throw (failure as { error: unknown }).error;
        const got = verify();
        parts.sort((a, b) => a.PartNumber - b.PartNumber);
        await this.s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
        uploadId = null;
        return got;
      } catch (error) {
        await Promise.allSettled(inFlight);
        // An incomplete upload is invisible; aborting frees its parts (a store that is down keeps them until its lifecycle rule).
        if (uploadId !== null) await this.s3.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: uploadId })).catch(() => undefined);
        throw error;
      }
    }, undefined, (error) => error === sourceFailure);
  }

  async open(key: string): Promise<OpenedBlob | null> {
    return this.call(
      'get',
      async () => {
        const answer = await this.s3.send(new GetObjectCommand({ Bucket: this.config.bucket, Key: this.key(key) }));
        return { type: 'stream' as const, stream: answer.Body as Readable, size: answer.ContentLength ?? 0 };
      },
      null,
    );
  }

  async head(key: string): Promise<{ size: number } | null> {
    return this.call(
      'head',
      async () => ({ size: (await this.s3.send(new HeadObjectCommand({ Bucket: this.config.bucket, Key: this.key(key) }))).ContentLength ?? 0 }),
      null,
    );
  }

  async remove(key: string): Promise<void> {
    await this.call('delete', async () => void (await this.s3.send(new DeleteObjectCommand({ Bucket: this.config.bucket, Key: this.key(key) }))));
  }

  async removeFolder(prefix: string): Promise<void> {
    let batch: string[] = [];
    const flush = async () => {
      if (batch.length === 0) return;
      const Objects = batch.map((Key) => ({ Key: this.key(Key) }));
      batch = [];
      await this.call('delete', () => this.s3.send(new DeleteObjectsCommand({ Bucket: this.config.bucket, Delete: { Objects, Quiet: true } })));
    };
    for await (const blob of this.list(prefix)) {
      batch.push(blob.key);
      if (batch.length === 1000) await flush();
    }
    await flush();
  }

  async folderSize(prefix: string): Promise<number> {
    let total = 0;
    for await (const blob of this.list(prefix)) total += blob.size;
    return total;
  }

  async presignedGet(key: string, seconds: number, filename?: string): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.config.bucket,
      Key: this.key(key),
      ...(filename ? { ResponseContentDisposition: `attachment; filename="${filename.replace(/"/g, '')}"` } : {}),
    });
    return getSignedUrl(this.s3, command, { expiresIn: seconds });
  }

  async digest(key: string): Promise<{ sha256: string; size: number } | null> {
    const opened = await this.open(key);
    if (!opened || opened.type !== 'stream') return null;
    return this.call('get', async () => {
      const hash = createHash('sha256');
      let size = 0;
      for await (const chunk of opened.stream as AsyncIterable<Buffer>) {
        hash.update(chunk);
        size += chunk.length;
      }
      return { sha256: hash.digest('hex'), size };
    });
  }

  async *list(prefix: string): AsyncIterable<{ key: string; size: number }> {
    let ContinuationToken: string | undefined;
    const Prefix = this.key(prefix.endsWith('/') ? prefix : `${prefix}/`);
    do {
      const page = await this.call('list', () => this.s3.send(new ListObjectsV2Command({ Bucket: this.config.bucket, Prefix, ContinuationToken })));
      for (const object of page.Contents ?? []) yield { key: object.Key!.slice(this.config.prefix.length), size: object.Size ?? 0 };
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (ContinuationToken);
  }

  async check(): Promise<void> {
    await this.call('check', () => this.s3.send(new HeadBucketCommand({ Bucket: this.config.bucket })));
  }

  close(): void {
    this.s3.destroy();
  }
}
