import type { FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { ARTIFACTS_DIR, LFS_OBJECTS_DIR, UPLOADS_DIR } from './layout.js';

/** The blob kinds that may live in an object store; each names its top folder, which is also its keys' first segment. */
export const BLOB_KINDS = ['lfs', 'uploads', 'artifacts'] as const;
export type BlobKind = (typeof BLOB_KINDS)[number];

export const BLOB_KIND_DIRS: Readonly<Record<BlobKind, string>> = { lfs: LFS_OBJECTS_DIR, uploads: UPLOADS_DIR, artifacts: ARTIFACTS_DIR };

/** The kind a blob key (a path relative to the data directory, `/`-separated) belongs to; null for anything else. */
export function blobKindOf(key: string): BlobKind | null {
  const top = key.split('/', 1)[0];
  return BLOB_KINDS.find((kind) => BLOB_KIND_DIRS[kind] === top) ?? null;
}

/** What a write expects of its bytes: checked before the blob becomes visible. */
export interface BlobExpectation {
  readonly sha256?: string;
  readonly size?: number;
  /** The source is cut (BlobMismatchError 'too_long') past this many bytes, nothing more read. */
  readonly maxBytes?: number;
}

/** A write whose bytes were not the expected ones: nothing was made visible. */
export class BlobMismatchError extends Error {
  constructor(
    readonly reason: 'mismatch' | 'too_long',
    readonly got: { sha256: string; size: number } | null,
  ) {
    super(reason === 'too_long' ? 'more bytes than expected' : `got ${got?.size} bytes with sha256 ${got?.sha256}`);
  }
}

/** The store did not answer, or answered with a failure of its own (not a missing key): a 503 to clients. */
export class StoreUnavailableError extends Error {
  constructor(
    readonly kind: BlobKind,
    readonly op: string,
    options: { cause: unknown },
  ) {
    super(`the ${kind} object store failed on ${op}: ${(options.cause as Error)?.message ?? String(options.cause)}`, options);
  }
}

/** A blob opened for reading: a local file (sent with the file helpers) or a store's stream. The reader closes or consumes it. */
export type OpenedBlob =
  | { readonly type: 'file'; readonly handle: FileHandle; readonly size: number }
  | { readonly type: 'stream'; readonly stream: Readable; readonly size: number };

/** Closes an opened blob that will not be read (or was read in part). */
export async function closeOpenedBlob(blob: OpenedBlob): Promise<void> {
  if (blob.type === 'file') await blob.handle.close();
  else blob.stream.destroy();
}

/**
 * Where one kind's blobs are kept: the local disk under the data directory or an S3 bucket. Keys are
 * the blobs' paths relative to the data directory, which every site shares (the Geo blob events' paths).
 */
export interface BlobStore {
  readonly location: 'local' | 'object';
  /**
   * Streams `source` (a file path or chunks) into `key`, hashing as it goes; the blob becomes
   * visible only when it matches `expected`, else BlobMismatchError and nothing is left. An
   * existing blob is replaced (keys are content-addressed or fresh).
   */
  put(key: string, source: string | AsyncIterable<Buffer> | Iterable<Buffer>, expected?: BlobExpectation): Promise<{ sha256: string; size: number }>;
  /** The blob opened for reading; null when missing. */
  open(key: string): Promise<OpenedBlob | null>;
  /** The blob's size; null when missing. */
  head(key: string): Promise<{ size: number } | null>;
  /** Removes one blob; a missing one is fine. */
  remove(key: string): Promise<void>;
  /** Removes every blob under a folder key (a project's uploads); a missing folder is fine. */
  removeFolder(prefix: string): Promise<void>;
  /** The total size of the blobs under a folder key. */
  folderSize(prefix: string): Promise<number>;
  /** A URL a client may GET the blob at for `seconds`, without credentials; null for the local disk. */
  presignedGet(key: string, seconds: number, filename?: string): Promise<string | null>;
  /** The sha256 and size of what is stored, read as a stream; null when missing. */
  digest(key: string): Promise<{ sha256: string; size: number } | null>;
  /** The blob keys under a folder key, for migrations and backups. */
  list(prefix: string): AsyncIterable<{ key: string; size: number }>;
  /** Throws when the store cannot be reached or its bucket is missing (checked at boot). */
  check(): Promise<void>;
  close(): void;
}
