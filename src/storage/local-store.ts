import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { BlobMismatchError, type BlobExpectation, type BlobStore, type OpenedBlob } from './blob-store.js';
import { CopyLimitError, copyWithDigest } from './durable-copy.js';

/**
 * The local disk under the data directory (the default): a write goes to a temporary name beside
 * its target, flushed, and is renamed into place once it matches.
 */
export class LocalBlobStore implements BlobStore {
  readonly location = 'local' as const;
  constructor(private readonly dataDir: string) {}

  private file(key: string): string {
    return path.join(this.dataDir, ...key.split('/'));
  }

  async put(key: string, source: string | AsyncIterable<Buffer> | Iterable<Buffer>, expected: BlobExpectation = {}): Promise<{ sha256: string; size: number }> {
    const target = this.file(key);
    const temporary = path.join(path.dirname(target), `.tmp-${path.basename(target)}.${randomUUID()}`);
    await mkdir(path.dirname(target), { recursive: true });
    let placed = false;
    try {
      const got = await copyWithDigest(source, temporary, { maxBytes: expected.maxBytes }).catch((error: unknown) => {
        if (error instanceof CopyLimitError) throw new BlobMismatchError('too_long', null);
        throw error;
      });
      if ((expected.sha256 !== undefined && got.sha256 !== expected.sha256) || (expected.size !== undefined && got.size !== expected.size)) {
        throw new BlobMismatchError('mismatch', got);
      }
      await rename(temporary, target);
      placed = true;
      return got;
    } finally {
      if (!placed) await rm(temporary, { force: true });
    }
  }

  async open(key: string): Promise<OpenedBlob | null> {
    const handle = await open(this.file(key), 'r').catch(() => null);
    if (!handle) return null;
    const info = await handle.stat().catch(() => null);
    if (info?.isFile()) return { type: 'file', handle, size: info.size };
    await handle.close();
    return null;
  }

  async head(key: string): Promise<{ size: number } | null> {
    const info = await stat(this.file(key)).catch(() => null);
    return info?.isFile() ? { size: info.size } : null;
  }

  async remove(key: string): Promise<void> {
    await rm(this.file(key), { force: true });
  }

  async removeFolder(prefix: string): Promise<void> {
    await rm(this.file(prefix), { recursive: true, force: true });
  }

  async folderSize(prefix: string): Promise<number> {
    let total = 0;
    for await (const blob of this.list(prefix)) total += blob.size;
    return total;
  }

  async presignedGet(): Promise<null> {
    return null;
  }

  async digest(key: string): Promise<{ sha256: string; size: number } | null> {
    const hash = createHash('sha256');
    let size = 0;
    try {
      for await (const chunk of createReadStream(this.file(key), { highWaterMark: 1024 * 1024 }) as AsyncIterable<Buffer>) {
        hash.update(chunk);
        size += chunk.length;
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'EISDIR') return null;
      throw error;
    }
    return { sha256: hash.digest('hex'), size };
  }

  async *list(prefix: string): AsyncIterable<{ key: string; size: number }> {
    const entries = await readdir(this.file(prefix), { withFileTypes: true, recursive: true }).catch(() => []);
    for (const entry of entries) {
      // Temporary names of writes under way are not blobs.
      if (!entry.isFile() || entry.name.startsWith('.tmp-') || entry.name.startsWith('.geo-tmp-')) continue;
      const file = path.join(entry.parentPath ?? entry.path, entry.name);
      const info = await stat(file).catch(() => null);
      if (info) yield { key: path.relative(this.dataDir, file).split(path.sep).join('/'), size: info.size };
    }
  }

  async check(): Promise<void> {}

  close(): void {}
}
