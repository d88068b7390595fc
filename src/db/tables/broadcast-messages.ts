import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

export interface BroadcastMessageRow {
  id: number;
  message: string;
  starts_at: string;
  ends_at: string;
  color: string | null;
  font: string | null;
  /** JSON array of access levels. */
  target_access_levels: string;
  target_path: string | null;
  broadcast_type: 'banner' | 'notification';
  dismissable: number | null;
  created_at: string;
  updated_at: string;
}

/** What a create or update writes. */
export type BroadcastMessageValues = Omit<BroadcastMessageRow, 'id' | 'created_at' | 'updated_at'>;

export function findBroadcastMessage(db: Db, id: number): BroadcastMessageRow | undefined {
  return prepare(db, 'SELECT * FROM broadcast_messages WHERE id = ?').get(id) as BroadcastMessageRow | undefined;
}

/** Newest first, as GitLab's order_id_desc. */
export function selectBroadcastMessages(db: Db, page: Page): Paged<BroadcastMessageRow> {
  return selectPage(db, '*', 'FROM broadcast_messages', 'id DESC', [], page);
}

export function insertBroadcastMessage(db: Db, values: BroadcastMessageValues, now: string): number {
  return Number(
    prepare(
      db,
      `INSERT INTO broadcast_messages (message, starts_at, ends_at, color, font, target_access_levels, target_path, broadcast_type, dismissable, created_at, updated_at)
       VALUES (@message, @starts_at, @ends_at, @color, @font, @target_access_levels, @target_path, @broadcast_type, @dismissable, @now, @now)`,
    ).run({ ...values, now }).lastInsertRowid,
  );
}

export function updateBroadcastMessage(db: Db, id: number, values: BroadcastMessageValues, now: string): void {
  prepare(
    db,
    `UPDATE broadcast_messages SET message = @message, starts_at = @starts_at, ends_at = @ends_at, color = @color, font = @font,
       target_access_levels = @target_access_levels, target_path = @target_path, broadcast_type = @broadcast_type,
       dismissable = @dismissable, updated_at = @now WHERE id = @id`,
  ).run({ ...values, id, now });
}

export function deleteBroadcastMessage(db: Db, id: number): void {
  prepare(db, 'DELETE FROM broadcast_messages WHERE id = ?').run(id);
}
