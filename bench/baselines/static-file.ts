// Limit baseline of the transfer rates (scenarios 8 and 9): a plain node:http static download,
// streamed from disk in reads of up to 1 MiB (as geoforge reads a download) with its Content-Length, nothing else. Given a file, every path answers that
// file; given a directory, a path answers the file at that path under it (the same bytes a geo
// transfer serves from a data dir). GET /ready answers readiness. A PUT is the equal-work limit of
// an upload: the body hashed with sha256 on its way to a temporary file, flushed, renamed, the digest
// answered; nothing else.
// Usage: node --import tsx static-file.ts <file-or-directory> <port>
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

const MIB = 1024 * 1024;

async function store(req: IncomingMessage): Promise<string> {
  const hash = createHash('sha256');
  const tap = new Transform({
    highWaterMark: MIB,
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  const temporary = path.join(os.tmpdir(), `static-put-${randomUUID()}`);
  await pipeline(req, tap, createWriteStream(temporary, { flush: true, highWaterMark: MIB }));
  await rename(temporary, `${temporary}.stored`);
  await rm(`${temporary}.stored`);
  return hash.digest('hex');
}

const [target, port] = process.argv.slice(2);
const root = statSync(target).isDirectory() ? target : null;

createServer(async (req, res) => {
  if (req.url === '/ready') {
    res.end('ok');
    return;
  }
  if (req.method === 'PUT') {
    store(req).then(
      (sha256) => res.end(sha256),
      () => res.writeHead(500).end(),
    );
    return;
  }
  const file = root === null ? target : path.join(root, path.normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://static').pathname)));
  const size = (await stat(file).catch(() => null))?.size;
  if (size === undefined) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(size) });
  pipeline(createReadStream(file, { highWaterMark: Math.min(Math.max(size, 1), MIB) }), res).catch(() => res.destroy());
}).listen(Number(port), '127.0.0.1');
