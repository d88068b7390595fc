// Limit baseline of scenario 9's transfer rates: a plain node:http static download of one file,
// streamed from disk with its Content-Length, nothing else. GET /ready answers readiness.
// Usage: node --import tsx static-file.ts <file> <port>
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { pipeline } from 'node:stream/promises';

const [file, port] = process.argv.slice(2);
const size = statSync(file).size;

createServer((req, res) => {
  if (req.url === '/ready') {
    res.end('ok');
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(size) });
  pipeline(createReadStream(file), res).catch(() => res.destroy());
}).listen(Number(port), '127.0.0.1');
