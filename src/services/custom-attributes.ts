import type { Db } from '../db/connection.js';
import { inTransaction } from '../db/connection.js';
import {
  deleteCustomAttributeRow,
  findCustomAttribute,
  listCustomAttributeRows,
  upsertCustomAttribute,
  type AttributeOwner,
  type CustomAttribute,
} from '../db/tables/custom-attributes.js';
import { invalid, notFound } from '../errors.js';
import { nowIso } from '../storage/clock.js';

export function listCustomAttributes(db: Db, owner: AttributeOwner, ownerId: number): CustomAttribute[] {
  return listCustomAttributeRows(db, owner, ownerId);
}

export function getCustomAttribute(db: Db, owner: AttributeOwner, ownerId: number, key: string): CustomAttribute {
  const row = findCustomAttribute(db, owner, ownerId, key);
  if (!row) throw notFound('Custom Attribute');
  return row;
}

/** Sets one attribute, creating it when new. */
export function setCustomAttribute(db: Db, owner: AttributeOwner, ownerId: number, key: string, value: string): CustomAttribute {
  if (key.length > 255) throw invalid({ key: ['is too long (maximum is 255 characters)'] });
  if (value.length > 255) throw invalid({ value: ['is too long (maximum is 255 characters)'] });
  upsertCustomAttribute(db, owner, ownerId, { key, value }, nowIso());
  return { key, value };
}

export function deleteCustomAttribute(db: Db, owner: AttributeOwner, ownerId: number, key: string): void {
  inTransaction(db, () => {
    getCustomAttribute(db, owner, ownerId, key);
    deleteCustomAttributeRow(db, owner, ownerId, key);
  });
}
