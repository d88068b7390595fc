import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

export type Db = Database.Database;
export type Statement = Database.Statement;

/** How long a write waits for another process's write lock (see openDatabase). */
const WRITER_BUSY_TIMEOUT_MS = 1_000;

/**
 * Opens the site's SQLite file: WAL so readers never wait for the writer, NORMAL sync (durable at
 * checkpoints, ~10x the commit rate of FULL; see BENCHMARKS.md), foreign keys enforced.
 * With workers (src/cluster/) several processes write the file, one at a time: a writer that finds
 * the lock taken waits in SQLite's busy handler, which blocks its event loop. Write transactions
 * take milliseconds, so a queue of a few workers clears in tens; 1 s is far past that and bounds
 * the stall a runaway transaction can cause (the write then fails with SQLITE_BUSY, a 500 that
 * names it, rather than every worker freezing for the old 5 s).
 */
export function openDatabase(file: string): Db {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma(`busy_timeout = ${WRITER_BUSY_TIMEOUT_MS}`);
  return db;
}

/**
 * Opens an existing site database for reading only, for reports run beside the site (the CLI):
 * WAL lets it read while the site writes, and it neither migrates nor changes anything.
 */
export function openDatabaseReadOnly(file: string): Db {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  return db;
}

const caches = new WeakMap<Db, Map<string, Statement>>();

/** A prepared statement, compiled once per database and SQL text. */
export function prepare(db: Db, sql: string): Statement {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let statement = cache.get(sql);
  if (!statement) {
    statement = db.prepare(sql);
    cache.set(sql, statement);
  }
  return statement;
}

/**
 * Runs `work` in one IMMEDIATE transaction: it takes the write lock up front, so two processes
 * never deadlock on upgrade. Called inside a transaction, `work` joins it. Prepared BEGIN and
 * COMMIT, rather than db.transaction(), which would build a new wrapper for every closure.
 */
export function inTransaction<T>(db: Db, work: () => T): T {
  if (db.inTransaction) return work();
  prepare(db, 'BEGIN IMMEDIATE').run();
  try {
    const result = work();
    prepare(db, 'COMMIT').run();
    return result;
  } catch (error) {
    if (db.inTransaction) prepare(db, 'ROLLBACK').run();
    throw error;
  }
}
