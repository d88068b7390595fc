import type { Request, Response } from 'express';
import { createReadStream, type ReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { notFound } from '../errors.js';
import { closeOpenedBlob, type OpenedBlob, type StoreUnavailableError } from '../storage/blob-store.js';
import type { BlobStores } from '../storage/blob-stores.js';

/**
 * Writes a JSON body with `Content-Type: application/json` exactly: python-gitlab compares the
 * header literally and express's res.json() would add a charset (GITLAB-NOTES W1).
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  const payload = Buffer.from(JSON.stringify(body));
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.setHeader('Content-Length', payload.length);
  res.end(payload);
}

export function sendNoContent(res: Response): void {
  res.statusCode = 204;
  res.end();
}

const DOWNLOAD_CHUNK_BYTES = 1024 * 1024;

/**
 * Reads a file of known size for a download in chunks of up to 1 MiB: a sixth of the read calls and
 * socket writes of the 64 KiB default, 1.7x the MiB/s of a large download here. A small file gets a
 * buffer of its own size, not a whole chunk, and the stream stops at the size instead of reading
 * once more to find the end.
 */
export function downloadStream(file: string | FileHandle, size: number): ReadStream {
  const options = { highWaterMark: Math.min(Math.max(size, 1), DOWNLOAD_CHUNK_BYTES), ...(size > 0 && { end: size - 1 }) };
  return typeof file === 'string' ? createReadStream(file, options) : file.createReadStream({ ...options, autoClose: false });
}

/** The whole of an open file that fits in one read. */
async function readWhole(handle: FileHandle, size: number): Promise<Buffer> {
  const body = Buffer.allocUnsafe(size);
  const { bytesRead } = await handle.read(body, 0, size, 0);
  if (bytesRead !== size) throw new Error(`the file has ${bytesRead} of its ${size} bytes`);
  return body;
}

/**
 * Sends the `size` bytes of an open file as the response body. A file that fits in one read is read
 * once and sent whole, with no stream around it: a geo sync of many small files pays a stream and a
 * pipeline per file otherwise. Rejects when the file is shorter than `size` or the response fails;
 * the caller cuts the response then.
 */
export async function sendFileBody(res: Response, handle: FileHandle, size: number): Promise<void> {
  if (size > DOWNLOAD_CHUNK_BYTES) return pipeline(downloadStream(handle, size), res);
  res.end(await readWhole(handle, size));
}

/**
 * Writes `prefix` and then the `size` bytes of an open file into a response that goes on after
 * them, as sendFileBody reads them; resolves once the socket can take more.
 */
export async function writeFileBody(res: Response, handle: FileHandle, size: number, prefix: Buffer): Promise<void> {
  if (size > DOWNLOAD_CHUNK_BYTES) {
    await writeBody(res, prefix);
    return pipeline(downloadStream(handle, size), res, { end: false });
  }
  const body = await readWhole(handle, size);
  res.cork();
  res.write(prefix);
  const room = res.write(body);
  res.uncork();
  if (!room) await drained(res);
}

/** Writes part of a response body that goes on after it; resolves once the socket can take more. */
export async function writeBody(res: Response, chunk: Buffer): Promise<void> {
  if (!res.write(chunk)) await drained(res);
}

/** Resolves at the response's next 'drain'; rejects if it closes first (the client went away). */
function drained(res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = () => {
      res.off('drain', settle);
      res.off('close', settle);
      if (res.destroyed) reject(new Error('the response closed before its body was written'));
      else resolve();
    };
    res.on('drain', settle);
    res.on('close', settle);
  });
}

/** A stored regular file, open, with its size; null when it is missing or not a file. The caller closes the handle. */
export async function openStoredFile(file: string): Promise<{ handle: FileHandle; size: number } | null> {
  const handle = await open(file, 'r').catch(() => null);
  if (!handle) return null;
  const info = await handle.stat().catch(() => null);
  if (info?.isFile()) return { handle, size: info.size };
  await handle.close();
  return null;
}

export interface StoredFileOptions {
  /** Named in the 404 when the file is gone from disk (`404 <resource> Not Found`). */
  readonly resource?: string;
  /** A file extension or MIME type for Content-Type (express's res.type). */
  readonly type?: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Sends a stored file with its length (no body for HEAD); 404 when it is gone from disk, decided
 * on the handle it is then read from. A client that goes away mid-download, or a read that fails
 * once the response has started, cuts the response: never a server error, never an unhandled
 * stream error.
 */
export async function sendStoredFile(req: Request, res: Response, file: string, options: StoredFileOptions = {}): Promise<void> {
  const stored = await openStoredFile(file);
  if (!stored) throw notFound(options.resource);
  try {
    res.setHeader('Content-Length', stored.size);
    if (options.type) res.type(options.type);
    for (const [name, value] of Object.entries(options.headers ?? {})) res.setHeader(name, value);
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    await sendFileBody(res, stored.handle, stored.size).catch(() => res.destroy());
  } finally {
    await stored.handle.close();
  }
}

/**
 * Sends an opened blob (a local file or an object store's stream) as the body, its headers already
 * set; the blob is closed either way. Resolves false when the response was cut off (a client gone,
 * a store that stopped midway): the response is destroyed then, never completed short.
 */
export async function sendOpenedBlob(res: Response, blob: OpenedBlob): Promise<boolean> {
  try {
    if (blob.type === 'file') await sendFileBody(res, blob.handle, blob.size);
    else await pipeline(blob.stream, res);
    return true;
  } catch {
    res.destroy();
    return false;
  } finally {
    await closeOpenedBlob(blob);
  }
}

/** The 503 of a blob operation whose object store failed: a reason, and when to try again. */
export const storeUnavailable = {
  retryAfterSeconds: 30,
  message: (error: StoreUnavailableError): string => `503 Service Unavailable: the ${error.kind} object store is not answering (${error.op}); try again later`,
};

/**
 * Sends a blob of the LFS, uploads or artifacts store (no body for HEAD), after the caller's access
 * checks: a redirect to a presigned URL when the kind's store serves clients directly
 * (proxyDownload false), else the blob through the site; 404 when it is missing.
 */
export async function sendBlob(req: Request, res: Response, blobs: BlobStores, key: string, options: StoredFileOptions & { filename?: string } = {}): Promise<void> {
  const presigned = await blobs.presignedGet(key, options.filename);
  if (presigned) {
    res.redirect(302, presigned);
    return;
  }
  const opened = await blobs.open(key);
  if (!opened) throw notFound(options.resource);
  res.setHeader('Content-Length', opened.size);
  if (options.type) res.type(options.type);
  for (const [name, value] of Object.entries(options.headers ?? {})) res.setHeader(name, value);
  if (req.method === 'HEAD') {
    await closeOpenedBlob(opened);
    res.end();
    return;
  }
  await sendOpenedBlob(res, opened);
}

/** Writes `prefix` and then an opened blob into a response that goes on after them (a Geo transfer batch); the caller closes the blob. */
export async function writeOpenedBlob(res: Response, blob: OpenedBlob, prefix: Buffer): Promise<void> {
  if (blob.type === 'file') return writeFileBody(res, blob.handle, blob.size, prefix);
  await writeBody(res, prefix);
  await pipeline(blob.stream, res, { end: false });
}
