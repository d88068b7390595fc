import type { Db } from '../db/connection.js';
import { prepare } from '../db/connection.js';

export interface LogPosition {
  /** The newest event id (0 when none was ever written). */
  readonly lastEventId: number;
  /** Its creation time in ms since the epoch, or null. */
  readonly lastEventAt: number | null;
  /** The oldest id still in the log; events before it were pruned. */
  readonly oldestEventId: number | null;
}

/** Ids come from sqlite_sequence, so the newest id is known even after pruning emptied the log. */
export function logPosition(db: Db): LogPosition {
  const lastEventId = (prepare(db, "SELECT seq FROM sqlite_sequence WHERE name = 'geo_event_log'").pluck().get() as number | undefined) ?? 0;
  const last = prepare(db, 'SELECT created_at FROM geo_event_log WHERE id = ?').pluck().get(lastEventId) as number | undefined;
  const oldest = prepare(db, 'SELECT min(id) FROM geo_event_log').pluck().get() as number | null;
  return { lastEventId, lastEventAt: last ?? null, oldestEventId: oldest };
}

/** The newest event id: the post-commit position of everything written so far. */
export function lastEventId(db: Db): number {
  return (prepare(db, "SELECT seq FROM sqlite_sequence WHERE name = 'geo_event_log'").pluck().get() as number | undefined) ?? 0;
}

/** The creation time (ms) of the oldest kept event after `afterId`, or null when there is none: what a cursor at `afterId` has yet to apply. */
export function firstEventAtAfter(db: Db, afterId: number): number | null {
  return (prepare(db, 'SELECT created_at FROM geo_event_log WHERE id > ? ORDER BY id LIMIT 1').pluck().get(afterId) as number | undefined) ?? null;
}

/**
 * Events after `afterId`, oldest first, as one JSON array text: each event is
 * `[id, created_at, kind, table, op, row_id, payload]` with the payload embedded as raw JSON,
 * so the primary never parses and re-encodes rows it only forwards.
 */
export function eventsAfterJson(db: Db, afterId: number, limit: number): { json: string; count: number } {
  const rows = prepare(db, 'SELECT id, created_at, kind, table_name, op, row_id, payload FROM geo_event_log WHERE id > ? ORDER BY id LIMIT ?')
    .raw()
    .all(afterId, limit) as [number, number, string, string | null, string | null, number | null, string | null][];
  const parts = rows.map(
    ([id, createdAt, kind, table, op, rowId, payload]) =>
      `[${id},${createdAt},${JSON.stringify(kind)},${JSON.stringify(table)},${JSON.stringify(op)},${rowId ?? 'null'},${payload ?? 'null'}]`,
  );
  return { json: `[${parts.join(',')}]`, count: rows.length };
}

/** Appends an event that carries no row: a heartbeat, so lag stays measurable when nothing is written. */
export function appendHeartbeat(db: Db, now = Date.now()): number {
  return Number(prepare(db, "INSERT INTO geo_event_log (created_at, kind) VALUES (?, 'heartbeat')").run(now).lastInsertRowid);
}

/**
 * Deletes events up to `throughId` but keeps the newest `keepMin`, and always deletes events
 * older than `retainSinceMs` so a dead secondary cannot pin the log forever. Returns the count.
 */
export function pruneEvents(db: Db, options: { throughId: number; keepMin: number; retainSinceMs: number }): number {
  const last = lastEventId(db);
  const bound = Math.min(options.throughId, last - options.keepMin);
  const byCursor = bound > 0 ? prepare(db, 'DELETE FROM geo_event_log WHERE id <= ?').run(bound).changes : 0;
  const byAge = prepare(db, 'DELETE FROM geo_event_log WHERE created_at < ? AND id < ?').run(options.retainSinceMs, last).changes;
  return byCursor + byAge;
}

/** The creation time of the newest blob event with an id in (after, through]; null when there is none (a primary-key range). */
export function newestBlobEventAt(db: Db, after: number, through: number): number | null {
  return (prepare(db, "SELECT max(created_at) FROM geo_event_log WHERE id > ? AND id <= ? AND kind = 'blob'").pluck().get(after, through) as number | null) ?? null;
}
