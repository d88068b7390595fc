// Limit baseline of the transfer rates (scenarios 8 and 9): a plain node:http static download,
// streamed from disk with its Content-Length, nothing else. Given a file, every path answers that
// file; given a directory, a path answers the file at that path under it (the same bytes a geo
// transfer serves from a data dir). GET /ready answers readiness.
// Usage: node --import tsx static-file.ts <file-or-directory> <port>
import { createReadStream, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

const [target, port] = process.argv.slice(2);
const root = statSync(target).isDirectory() ? target : null;

createServer(async (req, res) => {
  if (req.url === '/ready') {
    res.end('ok');
    return;
  }
  const file = root === null ? target : path.join(root, path.normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://static').pathname)));
  const size = (await stat(file).catch(() => null))?.size;
  if (size === undefined) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(size) });
  pipeline(createReadStream(file), res).catch(() => res.destroy());
}).listen(Number(port), '127.0.0.1');
