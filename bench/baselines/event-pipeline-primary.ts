// Limit baseline of scenarios 4 and 5 (BENCHMARKS.md §4.5, "minimal long-poll event pipeline"),
// primary side: node:http + better-sqlite3 serving the event log as geoforge's primary does.
//
//   node --import tsx event-pipeline-primary.ts <sqlite-file> <port> [--writable]
//
// GET /events?after=N&wait_ms=W answers the events after N, oldest first, at most 1,000 (geoforge's
// default batch), in geoforge's wire shape: {"lastEventId":..,"events":[[id,created_at,kind,
// table,op,row_id,payload],..]} with each payload embedded as stored JSON text. With no event
// after N it waits up to W ms, woken by its own writes and by a 20 ms poll of the file (the same
// fallback geoforge's primary uses for writers in other processes).
//
// --writable (scenario 5) adds PUT /users/:id {"bio": "..."}: one IMMEDIATE transaction runs the
// UPDATE and appends the row's event (the full row as JSON, as geoforge's capture triggers do),
// and the response carries X-Event-Id. The file's own capture triggers are dropped first, so each
// write logs exactly one event. Without --writable the file is opened read-only (scenario 4 reads
// geoforge's primary file while geoforge runs on it).
import Database from 'better-sqlite3';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

const [file, port, flag] = process.argv.slice(2);
const writable = flag === '--writable';
const BATCH = 1000;
const MAX_WAIT_MS = 30_000;
const POLL_MS = 20;

const db = writable ? new Database(file, { fileMustExist: true }) : new Database(file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
if (writable) {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const triggers = db.prepare("SELECT name FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'geo_capture_%'").pluck().all() as string[];
  for (const name of triggers) db.exec(`DROP TRIGGER "${name}"`);
}

const lastIdStatement = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'geo_event_log'").pluck();
const lastId = (): number => (lastIdStatement.get() as number | undefined) ?? 0;
const eventsAfter = db.prepare('SELECT id, created_at, kind, table_name, op, row_id, payload FROM geo_event_log WHERE id > ? ORDER BY id LIMIT ?').raw();

function eventsPage(after: number): string {
  const rows = eventsAfter.all(after, BATCH) as [number, number, string, string | null, string | null, number | null, string | null][];
  const parts = rows.map(
    ([id, createdAt, kind, table, op, rowId, payload]) =>
      `[${id},${createdAt},${JSON.stringify(kind)},${JSON.stringify(table)},${JSON.stringify(op)},${rowId ?? 'null'},${payload ?? 'null'}]`,
  );
  return `{"lastEventId":${lastId()},"events":[${parts.join(',')}]}`;
}
/** The page and the position in one read transaction, so they agree while another process writes. */
const readPage = db.transaction(eventsPage);

// Long-poll waiters, woken by writes here or by the poll while any wait.
const waiters = new Set<{ after: number; wake: () => void }>();
let poll: NodeJS.Timeout | null = null;
function notify(): void {
  if (!waiters.size) return;
  const last = lastId();
  for (const waiter of [...waiters]) if (last > waiter.after) waiter.wake();
}
function waitFor(after: number, waitMs: number): Promise<void> {
  if (waitMs <= 0 || lastId() > after) return Promise.resolve();
  return new Promise((resolve) => {
    const waiter = {
      after,
      wake: () => {
        clearTimeout(timer);
        waiters.delete(waiter);
        if (!waiters.size && poll) {
          clearInterval(poll);
          poll = null;
        }
        resolve();
      },
    };
    const timer = setTimeout(waiter.wake, waitMs);
    waiters.add(waiter);
    poll ??= setInterval(notify, POLL_MS);
  });
}

// Scenario 5's write: UPDATE + its event in one transaction.
const columns = (db.prepare("SELECT name FROM pragma_table_info('users')").pluck().all() as string[]).map((name) => `'${name}', "${name}"`);
const updateBio = db.prepare('UPDATE users SET bio = ?, updated_at = ? WHERE id = ?');
const appendEvent = writable
  ? db.prepare(
      `INSERT INTO geo_event_log (created_at, kind, table_name, op, row_id, payload) SELECT ?, 'row', 'users', 'upsert', id, json_object(${columns.join(', ')}) FROM users WHERE id = ?`,
    )
  : null;
const writeBio = db.transaction((id: number, bio: string): number | null => {
  if (updateBio.run(bio, new Date().toISOString(), id).changes !== 1) return null;
  return Number(appendEvent!.run(Date.now(), id).lastInsertRowid);
});

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...headers }).end(body);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (req.method === 'GET' && url.pathname === '/health') return send(res, 200, '{"status":"ok"}');
  if (req.method === 'GET' && url.pathname === '/events') {
    const after = Number(url.searchParams.get('after'));
    const waitMs = Math.min(MAX_WAIT_MS, Number(url.searchParams.get('wait_ms') ?? 0));
    if (!Number.isInteger(after) || after < 0 || !Number.isFinite(waitMs)) return send(res, 400, '{"message":"bad after or wait_ms"}');
    await waitFor(after, waitMs);
    return send(res, 200, readPage(after));
  }
  const user = /^\/users\/(\d+)$/.exec(url.pathname);
  if (writable && req.method === 'PUT' && user) {
    const { bio } = JSON.parse(await readBody(req)) as { bio: string };
    const eventId = writeBio.immediate(Number(user[1]), bio);
    if (eventId === null) return send(res, 404, '{"message":"404 User Not Found"}');
    send(res, 200, JSON.stringify({ id: Number(user[1]), bio }), { 'X-Event-Id': String(eventId) });
    notify();
    return;
  }
  send(res, 404, '{"message":"404 Not Found"}');
}

createServer((req, res) => {
  handle(req, res).catch((error: Error) => send(res, 500, JSON.stringify({ message: error.message })));
}).listen(Number(port), '127.0.0.1');
