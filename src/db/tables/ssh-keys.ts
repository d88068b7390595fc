import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import { selectPage, type Page, type Paged } from '../page.js';

export interface SshKeyRow {
  id: number;
  user_id: number;
  title: string;
  key: string;
  fingerprint: string;
  created_at: string;
}

export function findSshKey(db: Db, id: number): SshKeyRow | undefined {
  return prepare(db, 'SELECT * FROM ssh_keys WHERE id = ?').get(id) as SshKeyRow | undefined;
}

export function findSshKeyByFingerprint(db: Db, fingerprint: string): SshKeyRow | undefined {
  return prepare(db, 'SELECT * FROM ssh_keys WHERE fingerprint = ?').get(fingerprint) as SshKeyRow | undefined;
}

export function listSshKeysOf(db: Db, userId: number, page: Page): Paged<SshKeyRow> {
  return selectPage(db, '*', 'FROM ssh_keys WHERE user_id = ?', 'id', [userId], page);
}

export function insertSshKey(db: Db, row: Omit<SshKeyRow, 'id'>): number {
  return Number(
    prepare(db, 'INSERT INTO ssh_keys (user_id, title, key, fingerprint, created_at) VALUES (@user_id, @title, @key, @fingerprint, @created_at)').run(row)
      .lastInsertRowid,
  );
}

export function deleteSshKeyRow(db: Db, id: number): void {
  prepare(db, 'DELETE FROM ssh_keys WHERE id = ?').run(id);
}
