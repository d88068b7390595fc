import type { Db } from '../../db/connection.js';
import { prepare } from '../../db/connection.js';
import type { BlobEvent } from '../blobs.js';

/**
 * Turns a blob event into registry state, inside the applier's transaction (so exactly once,
 * with the cursor). A change makes the item pending again (a running sync sees the version move
 * and ends pending: one more sync, however many events came); a delete asks the worker to drop
 * the local copy and the row. A project's repository deleted drops every copy of that project.
 */
export function recordBlobEvent(db: Db, event: BlobEvent, eventAt: number): void {
  const now = Date.now();
  if (event.action === 'deleted') {
    upsertPending(db, event, eventAt, now, 1);
    if (event.type === 'repository') {
      prepare(db, 'UPDATE geo_registry SET to_delete = 1, version = version + 1, retry_at = NULL, retry_count = 0, state = CASE WHEN state = \'started\' THEN state ELSE \'pending\' END WHERE project_id = ? AND to_delete = 0').run(event.id);
    }
    return;
  }
  upsertPending(db, event, eventAt, now, 0);
}

function upsertPending(db: Db, event: BlobEvent, eventAt: number, now: number, toDelete: 0 | 1): void {
  prepare(
    db,
    `INSERT INTO geo_registry (item_type, item_id, project_id, path, state, to_delete, expected_checksum, event_at, created_at)
     VALUES (@type, @id, @project_id, @path, 'pending', @to_delete, @checksum, @event_at, @now)
     ON CONFLICT (item_type, item_id) DO UPDATE SET
       project_id = excluded.project_id,
       path = excluded.path,
       to_delete = excluded.to_delete,
       expected_checksum = coalesce(excluded.expected_checksum, expected_checksum),
       version = version + 1,
       state = CASE WHEN state = 'started' THEN state ELSE 'pending' END,
       retry_count = 0,
       retry_at = NULL,
       event_at = coalesce(event_at, excluded.event_at)`,
  ).run({ type: event.type, id: event.id, project_id: event.project_id, path: event.path, to_delete: toDelete, checksum: event.checksum, event_at: eventAt, now });
}
