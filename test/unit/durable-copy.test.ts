import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CopyLimitError, copyWithDigest } from '../../src/storage/durable-copy.js';

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('copyWithDigest', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'geoforge-copy-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('copies a file and returns its sha256 and size', async () => {
    const data = randomBytes(300_000);
    await writeFile(path.join(dir, 'source'), data);
    const result = await copyWithDigest(path.join(dir, 'source'), path.join(dir, 'copy'));
    expect(result).toEqual({ sha256: sha256(data), size: data.length });
    expect(sha256(await readFile(path.join(dir, 'copy')))).toBe(sha256(data));
  });

  it('copies a stream larger than the early-flush stretch byte for byte', async () => {
    // 72 MiB in uneven chunks: at least two early flushes run while writes continue.
    const chunks = Array.from({ length: 72 }, (_, i) => randomBytes(1024 * 1024 - (i % 7) * 1000));
    const whole = Buffer.concat(chunks);
    const result = await copyWithDigest(Readable.from(chunks), path.join(dir, 'large'));
    expect(result).toEqual({ sha256: sha256(whole), size: whole.length });
    expect(sha256(await readFile(path.join(dir, 'large')))).toBe(sha256(whole));
  });

  it('writes every chunk of a source whose chunks arrive at uneven times, ending right after a write', async () => {
    // Chunks come now at once, now after a write had time to finish, so the source ends both while a
    // write is under way and just after one: the file must hold every byte the digest counted.
    for (let run = 0; run < 20; run++) {
      const chunks = Array.from({ length: 1 + (run % 7) }, (_, i) => randomBytes(1 + ((run * 7919 + i * 104729) % 70_000)));
      const source = (async function* () {
        for (const [i, chunk] of chunks.entries()) {
          if ((run + i) % 3 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
          else if ((run + i) % 3 === 1) await new Promise((resolve) => setImmediate(resolve));
          yield chunk;
        }
      })();
      const whole = Buffer.concat(chunks);
      const file = path.join(dir, `uneven-${run}`);
      expect(await copyWithDigest(source, file)).toEqual({ sha256: sha256(whole), size: whole.length });
      expect((await readFile(file)).equals(whole)).toBe(true);
    }
  });

  it('refuses an existing target unless asked to overwrite it', async () => {
    await writeFile(path.join(dir, 'taken'), 'old contents that are longer');
    await expect(copyWithDigest(Readable.from([Buffer.from('new')]), path.join(dir, 'taken'))).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await readFile(path.join(dir, 'taken'), 'utf8')).toBe('old contents that are longer');
    await copyWithDigest(Readable.from([Buffer.from('new')]), path.join(dir, 'taken'), { overwrite: true });
    expect(await readFile(path.join(dir, 'taken'), 'utf8')).toBe('new');
  });

  it('stops at maxBytes with CopyLimitError, never writing past it', async () => {
    const chunks = [randomBytes(1000), randomBytes(1000), randomBytes(1000)];
    await expect(copyWithDigest(Readable.from(chunks), path.join(dir, 'limited'), { maxBytes: 1500 })).rejects.toBeInstanceOf(CopyLimitError);
    expect((await readFile(path.join(dir, 'limited'))).length).toBeLessThanOrEqual(1500);
    expect(await copyWithDigest(Readable.from(chunks), path.join(dir, 'exact'), { maxBytes: 3000 })).toEqual({ sha256: sha256(Buffer.concat(chunks)), size: 3000 });
  });

  it('rejects with the error of a source that fails midway', async () => {
    const failing = new Readable({
      read() {
        this.push(randomBytes(1024));
        this.destroy(new Error('connection reset'));
      },
    });
    await expect(copyWithDigest(failing, path.join(dir, 'partial'))).rejects.toThrow('connection reset');
  });
});
