import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import type { Page, Paged } from '../../db/page.js';
import {
  deleteBroadcastMessage,
  findBroadcastMessage,
  insertBroadcastMessage,
  selectBroadcastMessages,
  updateBroadcastMessage,
  type BroadcastMessageRow,
  type BroadcastMessageValues,
} from '../../db/tables/broadcast-messages.js';
import { invalid, notFound } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';
import { assertUnmodifiedSince } from '../unmodified-since.js';

/** What a create or update gives; absent keys keep the stored value (or take GitLab's default on create). */
export interface BroadcastMessageInput {
  message?: string;
  starts_at?: string;
  ends_at?: string;
  color?: string;
  font?: string;
  target_access_levels?: number[];
  target_path?: string;
  broadcast_type?: 'banner' | 'notification';
  dismissable?: boolean;
}

/** GitLab's ColorValidator: a hex colour of 3 or 6 digits. */
const COLOR = /^#(?:[0-9a-f]{3}){1,2}$/i;
const HOUR_MS = 3_600_000;

export function listBroadcastMessages(db: Db, page: Page): Paged<BroadcastMessageRow> {
  return selectBroadcastMessages(db, page);
}

/** One message, or 404 `Broadcast message`. */
export function getBroadcastMessage(db: Db, id: number): BroadcastMessageRow {
  const row = findBroadcastMessage(db, id);
  if (!row) throw notFound('Broadcast message');
  return row;
}

/** Creates a message; it starts now and ends an hour later unless told otherwise, as GitLab's defaults. */
export function createBroadcastMessage(db: Db, input: BroadcastMessageInput & { message: string }): BroadcastMessageRow {
  const now = Date.now();
  const values = valuesOf(
    { message: '', starts_at: new Date(now).toISOString(), ends_at: new Date(now + HOUR_MS).toISOString(), color: null, font: null, target_access_levels: '[]', target_path: null, broadcast_type: 'banner', dismissable: null },
    input,
  );
  return inTransaction(db, () => getBroadcastMessage(db, insertBroadcastMessage(db, values, nowIso())));
}

export function changeBroadcastMessage(db: Db, id: number, input: BroadcastMessageInput): BroadcastMessageRow {
  return inTransaction(db, () => {
    const values = valuesOf(getBroadcastMessage(db, id), input);
    updateBroadcastMessage(db, id, values, nowIso());
    return getBroadcastMessage(db, id);
  });
}

/** Deletes a message; 412 when it changed after `unmodifiedSince` (GitLab's destroy_conditionally!). */
export function removeBroadcastMessage(db: Db, id: number, unmodifiedSince: number | null): void {
  inTransaction(db, () => {
    const row = getBroadcastMessage(db, id);
    assertUnmodifiedSince(unmodifiedSince, row.updated_at);
    deleteBroadcastMessage(db, id);
  });
}

/** The row's values with the input over them, validated as GitLab's BroadcastMessage model (400 with the fields). */
function valuesOf(current: BroadcastMessageValues, input: BroadcastMessageInput): BroadcastMessageValues {
  const next: BroadcastMessageValues = {
    message: input.message ?? current.message,
    starts_at: input.starts_at ?? current.starts_at,
    ends_at: input.ends_at ?? current.ends_at,
    color: input.color ?? current.color,
    font: input.font ?? current.font,
    target_access_levels: input.target_access_levels ? JSON.stringify([...new Set(input.target_access_levels)].sort((a, b) => a - b)) : current.target_access_levels,
    target_path: input.target_path ?? current.target_path,
    broadcast_type: input.broadcast_type ?? current.broadcast_type,
    dismissable: input.dismissable === undefined ? current.dismissable : input.dismissable ? 1 : 0,
  };
  const errors: Record<string, string[]> = {};
  if (next.message.trim() === '') errors.message = ["can't be blank"];
  if (next.color && !COLOR.test(next.color)) errors.color = ['must be a valid color code'];
  if (next.font && !COLOR.test(next.font)) errors.font = ['must be a valid color code'];
  if (Date.parse(next.ends_at) < Date.parse(next.starts_at)) errors.ends_at = ['must be after start'];
  if (Object.keys(errors).length) throw invalid(errors);
  return next;
}
