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

/** The key with this fingerprint (index gpg_keys_fingerprint), as a signature's issuer fingerprint names it. */
export function findGpgKeyByFingerprint(db: Db, fingerprint: string): GpgKeyRow | undefined {
  return prepare(db, 'SELECT * FROM gpg_keys WHERE fingerprint = ?').get(fingerprint) as GpgKeyRow | undefined;
}

/**
 * The key whose primary key id is this one, for a signature that names only its issuer's key id
 * (no fingerprint subpacket, rare since GnuPG 2.1): a scan of gpg_keys, which holds a few keys per user.
 */
export function findGpgKeyByPrimaryKeyId(db: Db, keyId: string): GpgKeyRow | undefined {
  return prepare(db, 'SELECT * FROM gpg_keys WHERE primary_keyid = ?').get(keyId) as GpgKeyRow | undefined;
}

/** Every key of a user (index gpg_keys_user): a user registers a handful. */
export function gpgKeysOfUser(db: Db, userId: number): GpgKeyRow[] {
  return prepare(db, 'SELECT * FROM gpg_keys WHERE user_id = ? ORDER BY id').all(userId) as GpgKeyRow[];
}
