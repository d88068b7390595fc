import type { Db } from '../db/connection.js';
import { inTransaction, prepare } from '../db/connection.js';
import { invalid, notFound } from '../errors.js';
import { nowIso } from '../storage/clock.js';

/** Where one kind of owner keeps its custom attributes. */
export type AttributeOwner =
  | { readonly table: 'user_custom_attributes'; readonly column: 'user_id' }
  | { readonly table: 'group_custom_attributes'; readonly column: 'group_id' }
  | { readonly table: 'project_custom_attributes'; readonly column: 'project_id' };

export interface CustomAttribute {
  key: string;
  value: string;
}

export function listCustomAttributes(db: Db, owner: AttributeOwner, ownerId: number): CustomAttribute[] {
  return prepare(db, `SELECT key, value FROM ${owner.table} WHERE ${owner.column} = ? ORDER BY key`).all(ownerId) as CustomAttribute[];
}

export function getCustomAttribute(db: Db, owner: AttributeOwner, ownerId: number, key: string): CustomAttribute {
  const row = prepare(db, `SELECT key, value FROM ${owner.table} WHERE ${owner.column} = ? AND key = ?`).get(ownerId, key) as CustomAttribute | undefined;
  if (!row) throw notFound('Custom Attribute');
  return row;
}

/** Sets one attribute, creating it when new. */
export function setCustomAttribute(db: Db, owner: AttributeOwner, ownerId: number, key: string, value: string): CustomAttribute {
  if (key.length > 255) throw invalid({ key: ['is too long (maximum is 255 characters)'] });
  if (value.length > 255) throw invalid({ value: ['is too long (maximum is 255 characters)'] });
  const now = nowIso();
  prepare(
    db,
    `INSERT INTO ${owner.table} (${owner.column}, key, value, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (${owner.column}, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  ).run(ownerId, key, value, now, now);
  return { key, value };
}

export function deleteCustomAttribute(db: Db, owner: AttributeOwner, ownerId: number, key: string): void {
  inTransaction(db, () => {
    getCustomAttribute(db, owner, ownerId, key);
    prepare(db, `DELETE FROM ${owner.table} WHERE ${owner.column} = ? AND key = ?`).run(ownerId, key);
  });
}
