import type { Transaction } from 'better-sqlite3';
import type { Db } from '../../db/connection.js';
import { prepare } from '../../db/connection.js';
import { replicatedTables } from '../../db/capture.js';
import { parseBlobEvent, type BlobEvent } from '../blobs.js';
import { recordBlobEvent } from '../registry/record-event.js';
import type { WireEvent } from './primary-client.js';
import { rowStatements, type RowStatements } from './row-statements.js';

export interface Cursor {
  readonly lastEventId: number;
  readonly lastEventAt: number | null;
  readonly bootstrappedAt: string;
  readonly resyncHandled: string | null;
}

export class GapError extends Error {}

export function readCursor(db: Db): Cursor | null {
  const row = prepare(db, 'SELECT last_event_id, last_event_at, bootstrapped_at, resync_handled FROM geo_cursor WHERE id = 1').get() as
    | { last_event_id: number; last_event_at: number | null; bootstrapped_at: string; resync_handled: string | null }
    | undefined;
  return row ? { lastEventId: row.last_event_id, lastEventAt: row.last_event_at, bootstrappedAt: row.bootstrapped_at, resyncHandled: row.resync_handled } : null;
}

/**
 * Applies events to a secondary's database. A batch and the cursor move in one transaction, so
 * after a crash at any point the database holds exactly the events up to the cursor: each
 * applied once, in order. Ids must follow the cursor without a gap; a gap is refused.
 */
export class Applier {
  private readonly tables = new Map<string, RowStatements>();
  private readonly applyBatch: Transaction<(events: WireEvent[]) => void>;

  /** `holds`: whether this site keeps a blob (selective sync); an event for one it does not keep adds no registry work. */
  constructor(private readonly db: Db, private readonly holds: (event: BlobEvent) => boolean = () => true) {
    for (const [table, columns] of replicatedTables(db)) this.tables.set(table, rowStatements(db, table, columns));
    const moveCursor = db.prepare('UPDATE geo_cursor SET last_event_id = ?, last_event_at = ? WHERE id = 1 AND last_event_id = ?');
    this.applyBatch = db.transaction((events: WireEvent[]) => {
      // Rows arrive in commit order, but a child may precede its parent inside one transaction.
      db.pragma('defer_foreign_keys = ON');
      const cursor = readCursor(db);
      if (!cursor) throw new Error('not bootstrapped: no cursor');
      let expected = cursor.lastEventId + 1;
      for (const event of events) {
        if (event[0] !== expected) throw new GapError(`event ${event[0]} does not follow ${expected - 1}`);
        this.applyOne(event);
        expected++;
      }
      const last = events[events.length - 1];
      if (moveCursor.run(last[0], last[1], cursor.lastEventId).changes !== 1) throw new Error('cursor moved underneath the applier');
    });
  }

  /** Applies a contiguous batch after the cursor, all or nothing. */
  apply(events: WireEvent[]): void {
    if (events.length) this.applyBatch.immediate(events);
  }

  private applyOne([id, createdAt, kind, table, op, rowId, payload]: WireEvent): void {
    if (kind === 'heartbeat') return;
    if (kind === 'blob') {
      const event = parseBlobEvent(payload);
      if (!event) throw new Error(`event ${id}: malformed blob event`);
      // A delete is recorded even outside the selection: it only ever removes a copy.
      if (event.action !== 'deleted' && !this.holds(event)) return;
      return recordBlobEvent(this.db, event, createdAt);
    }
    if (kind !== 'row') throw new Error(`event ${id}: unknown kind ${String(kind)}`);
    const statements = table === null ? undefined : this.tables.get(table);
    if (!statements) throw new Error(`event ${id}: unknown table ${table}`);
    if (op === 'delete') statements.remove.run(rowId);
    else if (!statements.updateUnindexed?.run(payload).changes) statements.upsert.run(payload);
  }
}
