import { createHash } from 'node:crypto';
import { open, rename } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { request } from 'undici';

/**
 * The limit a secondary's file sync is measured against: undici streams the body to a temp file
 * beside `file`, hashing it on the way, fsyncs it and renames it into place, the same durable
 * steps a sync takes, with nothing else around them. Resolves with the sha256 hex of the bytes.
 */
export async function downloadToFile(url: string, file: string): Promise<string> {
  const response = await request(url);
  if (response.statusCode !== 200) {
    await response.body.dump();
    throw new Error(`GET ${url}: ${response.statusCode}`);
  }
  const hash = createHash('sha256');
  const temp = `${file}.part`;
  const handle = await open(temp, 'w');
  try {
    // Chunks that arrive while a write is under way go out together in one writev.
    const sink = new Writable({
      writev(chunks, done) {
        const buffers = chunks.map(({ chunk }) => chunk as Buffer);
        for (const buffer of buffers) hash.update(buffer);
        handle.writev(buffers).then(() => done(), done);
      },
      final(done) {
        handle.sync().then(() => done(), done);
      },
    });
    await pipeline(response.body, sink);
  } finally {
    await handle.close();
  }
  await rename(temp, file);
  return hash.digest('hex');
}
