// Informational baseline (b) of scenario 1: node:http + better-sqlite3, the same read as
// express-sqlite.ts without express. Usage: node --import tsx node-http-sqlite.ts <sqlite-file> <port>
import Database from 'better-sqlite3';
import { createServer } from 'node:http';

const [file, port] = process.argv.slice(2);
const db = new Database(file, { readonly: true, fileMustExist: true });
const userById = db.prepare('SELECT * FROM users WHERE id = ?');

createServer((req, res) => {
  const match = /^\/users\/(\d+)$/.exec(req.url ?? '');
  const row = match ? userById.get(Number(match[1])) : undefined;
  if (!row) {
    res.writeHead(404).end();
    return;
  }
  const body = JSON.stringify(row);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);
}).listen(Number(port), '127.0.0.1');
