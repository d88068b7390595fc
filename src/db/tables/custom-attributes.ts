import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

/** Where one kind of owner keeps its custom attributes: a table per owner kind, the same columns in each. */
export type AttributeOwner =
  | { readonly table: 'user_custom_attributes'; readonly column: 'user_id' }
  | { readonly table: 'group_custom_attributes'; readonly column: 'group_id' }
  | { readonly table: 'project_custom_attributes'; readonly column: 'project_id' };

export interface CustomAttribute {
  key: string;
  value: string;
}

export function listCustomAttributeRows(db: Db, owner: AttributeOwner, ownerId: number): CustomAttribute[] {
  return prepare(db, `SELECT key, value FROM ${owner.table} WHERE ${owner.column} = ? ORDER BY key`).all(ownerId) as CustomAttribute[];
}

export function findCustomAttribute(db: Db, owner: AttributeOwner, ownerId: number, key: string): CustomAttribute | undefined {
  return prepare(db, `SELECT key, value FROM ${owner.table} WHERE ${owner.column} = ? AND key = ?`).get(ownerId, key) as CustomAttribute | undefined;
}

/** Sets one attribute, creating it when new. */
export function upsertCustomAttribute(db: Db, owner: AttributeOwner, ownerId: number, attribute: CustomAttribute, now: string): void {
  prepare(
    db,
    `INSERT INTO ${owner.table} (${owner.column}, key, value, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (${owner.column}, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  ).run(ownerId, attribute.key, attribute.value, now, now);
}

export function deleteCustomAttributeRow(db: Db, owner: AttributeOwner, ownerId: number, key: string): void {
  prepare(db, `DELETE FROM ${owner.table} WHERE ${owner.column} = ? AND key = ?`).run(ownerId, key);
}
