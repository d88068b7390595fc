import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

export interface GpgKeyRow {
  id: number;
  user_id: number;
  key: string;
  fingerprint: string;
  primary_keyid: string;
  created_at: string;
}

export function findGpgKey(db: Db, id: number): GpgKeyRow | undefined {
  return prepare(db, 'SELECT * FROM gpg_keys WHERE id = ?').get(id) as GpgKeyRow | undefined;
}

export function gpgKeyFingerprintTaken(db: Db, fingerprint: string): boolean {
  return prepare(db, 'SELECT 1 FROM gpg_keys WHERE fingerprint = ?').get(fingerprint) !== undefined;
}

export function listGpgKeysOf(db: Db, userId: number, page: Page): Paged<GpgKeyRow> {
  return selectPage(db, '*', 'FROM gpg_keys WHERE user_id = ?', 'id', [userId], page);
}

export function insertGpgKey(db: Db, row: Omit<GpgKeyRow, 'id'>): number {
  return Number(
    prepare(
      db,
      'INSERT INTO gpg_keys (user_id, key, fingerprint, primary_keyid, created_at) VALUES (@user_id, @key, @fingerprint, @primary_keyid, @created_at)',
    ).run(row).lastInsertRowid,
  );
}

export function deleteGpgKeyRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM gpg_keys WHERE id = ?').run(id);
}
