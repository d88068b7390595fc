// Limit baseline of scenarios 4 and 5 (BENCHMARKS.md §4.5, "minimal long-poll event pipeline"),
// consumer side: long-polls event-pipeline-primary.ts and applies each page into its own copy of
// the database in one transaction together with its cursor row, as geoforge's secondary does
// (the same upsert per table, foreign keys deferred), and nothing else.
//
//   node --import tsx event-pipeline-consumer.ts <sqlite-file> <primary-url> <port> <start-after-id>
//
// The cursor lives in pipeline_cursor (created at the first start with <start-after-id>; kept
// afterwards). Its HTTP side, for the bench:
//   GET /cursor        {"cursor": N}, once the first page was asked for (readiness)
//   GET /users/:id     the local row; with X-Min-Event-Id: N it first waits until the cursor
//                      reaches N (read-your-writes, as geoforge's X-Geoforge-Min-Event-Id), 504 after 5 s
import Database from 'better-sqlite3';
import { createServer, type ServerResponse } from 'node:http';
import { Agent, request } from 'undici';
import { isReplicatedTable } from '../../src/db/local-tables.js';

type WireEvent = [number, number, string, string | null, 'upsert' | 'delete' | null, number | null, Record<string, unknown> | null];

const [file, primaryUrl, port, startAfter] = process.argv.slice(2);
const LONG_POLL_MS = 10_000;
const READ_YOUR_WRITES_MS = 5_000;

const db = new Database(file, { fileMustExist: true });
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('foreign_keys = ON');
db.pragma('busy_timeout = 5000');
// A copy of a primary's file still has its capture triggers; a replica must not log what it applies.
for (const name of db.prepare("SELECT name FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'geo_capture_%'").pluck().all() as string[]) {
  db.exec(`DROP TRIGGER "${name}"`);
}
db.exec('CREATE TABLE IF NOT EXISTS pipeline_cursor (id INTEGER PRIMARY KEY CHECK (id = 1), last_event_id INTEGER NOT NULL)');
db.prepare('INSERT OR IGNORE INTO pipeline_cursor (id, last_event_id) VALUES (1, ?)').run(Number(startAfter));

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
const upserts = new Map<string, Database.Statement>();
const deletes = new Map<string, Database.Statement>();
for (const table of db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").pluck().all() as string[]) {
  // The tables geoforge replicates, by its own definition; pipeline_cursor is this baseline's cursor.
  if (!isReplicatedTable(table) || table === 'pipeline_cursor') continue;
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[];
  const updates = columns.filter((column) => column !== 'id').map((column) => `${quote(column)} = excluded.${quote(column)}`);
  upserts.set(
    table,
    db.prepare(
      `INSERT INTO ${quote(table)} (${columns.map(quote).join(', ')}) VALUES (${columns.map((column) => `@${column}`).join(', ')}) ON CONFLICT (id) ${updates.length ? `DO UPDATE SET ${updates.join(', ')}` : 'DO NOTHING'}`,
    ),
  );
  deletes.set(table, db.prepare(`DELETE FROM ${quote(table)} WHERE id = ?`));
}

const readCursor = db.prepare('SELECT last_event_id FROM pipeline_cursor WHERE id = 1').pluck();
const moveCursor = db.prepare('UPDATE pipeline_cursor SET last_event_id = ? WHERE id = 1');
let cursor = readCursor.get() as number;

const apply = db.transaction((events: WireEvent[]) => {
  db.pragma('defer_foreign_keys = ON');
  for (const [id, , kind, table, op, rowId, payload] of events) {
    if (id !== cursor + 1) throw new Error(`event ${id} does not follow ${cursor}`);
    cursor = id;
    if (kind !== 'row') continue;
    const statement = op === 'delete' ? deletes.get(table!) : upserts.get(table!);
    if (!statement) throw new Error(`event ${id}: unknown table ${table}`);
    statement.run(op === 'delete' ? rowId : payload);
  }
  moveCursor.run(cursor);
});

// Read-your-writes waiters.
const waiters = new Set<{ eventId: number; done: (reached: boolean) => void }>();
function waitFor(eventId: number): Promise<boolean> {
  if (cursor >= eventId) return Promise.resolve(true);
  return new Promise((resolve) => {
    const waiter = {
      eventId,
      done: (reached: boolean) => {
        clearTimeout(timer);
        waiters.delete(waiter);
        resolve(reached);
      },
    };
    const timer = setTimeout(() => waiter.done(false), READ_YOUR_WRITES_MS);
    waiters.add(waiter);
  });
}

let polling = false;
async function consume(): Promise<void> {
  const dispatcher = new Agent({ keepAliveTimeout: 30_000 });
  for (;;) {
    try {
      polling = true;
      const response = await request(`${primaryUrl}/events?after=${cursor}&wait_ms=${LONG_POLL_MS}`, { dispatcher, headersTimeout: LONG_POLL_MS + 30_000 });
      if (response.statusCode !== 200) throw new Error(`primary answered ${response.statusCode}: ${await response.body.text()}`);
      const page = (await response.body.json()) as { events: WireEvent[] };
      if (!page.events.length) continue;
      const before = cursor;
      try {
        apply.immediate(page.events);
      } catch (error) {
        cursor = before; // rolled back
        throw error;
      }
      for (const waiter of [...waiters]) if (cursor >= waiter.eventId) waiter.done(true);
    } catch (error) {
      console.error('consumer:', (error as Error).message);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

const userById = db.prepare('SELECT * FROM users WHERE id = ?');
function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);
}

createServer((req, res) => {
  if (req.url === '/cursor') return polling ? send(res, 200, JSON.stringify({ cursor })) : send(res, 503, '{"message":"starting"}');
  const match = /^\/users\/(\d+)$/.exec(req.url ?? '');
  if (req.method !== 'GET' || !match) return send(res, 404, '{"message":"404 Not Found"}');
  const header = req.headers['x-min-event-id'];
  const answer = (reached: boolean) => {
    if (!reached) return send(res, 504, '{"message":"cursor did not reach the event in time"}');
    const row = userById.get(Number(match[1]));
    if (row) send(res, 200, JSON.stringify(row));
    else send(res, 404, '{"message":"404 User Not Found"}');
  };
  if (typeof header === 'string') void waitFor(Number(header)).then(answer);
  else answer(true);
}).listen(Number(port), '127.0.0.1', () => void consume());
