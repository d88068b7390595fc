import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

export interface SshKeyRow {
  id: number;
  user_id: number;
  title: string;
  key: string;
  fingerprint: string;
  /** The colon-separated MD5 form; null on rows older than migration 15 until the primary fills it at boot. */
  fingerprint_md5: string | null;
  created_at: string;
}

export function findSshKey(db: Db, id: number): SshKeyRow | undefined {
  return prepare(db, 'SELECT * FROM ssh_keys WHERE id = ?').get(id) as SshKeyRow | undefined;
}

export function findSshKeyByFingerprint(db: Db, fingerprint: string): SshKeyRow | undefined {
  return prepare(db, 'SELECT * FROM ssh_keys WHERE fingerprint = ?').get(fingerprint) as SshKeyRow | undefined;
}

export function findSshKeyByMd5(db: Db, fingerprintMd5: string): SshKeyRow | undefined {
  return prepare(db, 'SELECT * FROM ssh_keys WHERE fingerprint_md5 = ?').get(fingerprintMd5) as SshKeyRow | undefined;
}

/** Up to `limit` keys after `afterId` without their MD5 fingerprint (made before migration 15), by id. */
export function listSshKeysWithoutMd5(db: Db, afterId: number, limit: number): SshKeyRow[] {
  return prepare(db, 'SELECT * FROM ssh_keys WHERE id > ? AND fingerprint_md5 IS NULL ORDER BY id LIMIT ?').all(afterId, limit) as SshKeyRow[];
}

export function setSshKeyMd5(db: Db, id: number, fingerprintMd5: string): void {
  prepare(db, 'UPDATE ssh_keys SET fingerprint_md5 = ? WHERE id = ?').run(fingerprintMd5, id);
}

export function listSshKeysOf(db: Db, userId: number, page: Page): Paged<SshKeyRow> {
  return selectPage(db, '*', 'FROM ssh_keys WHERE user_id = ?', 'id', [userId], page);
}

/** `fingerprint_md5` may be left out (null) by writers that seed rows directly, such as the replication bench; the primary fills it at boot. */
export function insertSshKey(db: Db, row: Omit<SshKeyRow, 'id' | 'fingerprint_md5'> & { fingerprint_md5?: string | null }): number {
  const sql = 'INSERT INTO ssh_keys (user_id, title, key, fingerprint, fingerprint_md5, created_at) VALUES (@user_id, @title, @key, @fingerprint, @fingerprint_md5, @created_at)';
  return Number(prepare(db, sql).run({ ...row, fingerprint_md5: row.fingerprint_md5 ?? null }).lastInsertRowid);
}

export function deleteSshKeyRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM ssh_keys WHERE id = ?').run(id);
}
