import type { BroadcastMessageRow } from '../db/tables/broadcast-messages.js';

/**
 * GitLab's BroadcastMessage entity. `active` is computed from the times at each read (started and
 * not ended), never stored: a message turns active and inactive without a write.
 */
export function broadcastMessageView(row: BroadcastMessageRow, now: number) {
  return {
    id: row.id,
    message: row.message,
    starts_at: row.starts_at,
    ends_at: row.ends_at,
    color: row.color,
    font: row.font,
    target_access_levels: JSON.parse(row.target_access_levels) as number[],
    target_path: row.target_path,
    broadcast_type: row.broadcast_type,
    dismissable: row.dismissable === null ? null : row.dismissable === 1,
    active: Date.parse(row.starts_at) <= now && Date.parse(row.ends_at) > now,
  };
}
