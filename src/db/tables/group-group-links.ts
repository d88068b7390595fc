import type { Db } from '../connection.js';
import { prepare } from '../connection.js';
import type { NamespaceRow } from './namespaces.js';

/** A group shared with another group (GitLab's GroupGroupLink). */
export interface GroupGroupLinkRow {
  id: number;
  shared_group_id: number;
  shared_with_group_id: number;
  group_access: number;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export function findGroupGroupLink(db: Db, sharedGroupId: number, sharedWithGroupId: number): GroupGroupLinkRow | undefined {
  return prepare(db, 'SELECT * FROM group_group_links WHERE shared_group_id = ? AND shared_with_group_id = ?').get(sharedGroupId, sharedWithGroupId) as
    | GroupGroupLinkRow
    | undefined;
}

export function insertGroupGroupLink(db: Db, row: Omit<GroupGroupLinkRow, 'id'>): void {
  prepare(
    db,
    `INSERT INTO group_group_links (shared_group_id, shared_with_group_id, group_access, expires_at, created_at, updated_at)
     VALUES (@shared_group_id, @shared_with_group_id, @group_access, @expires_at, @created_at, @updated_at)`,
  ).run(row);
}

export function deleteGroupGroupLink(db: Db, id: number): void {
  prepare(db, 'DELETE FROM group_group_links WHERE id = ?').run(id);
}

/** A shared-with group with the share's access and expiry, for group details (GitLab's SharedGroupWithGroup). */
export type SharedWithGroupRow = NamespaceRow & { group_access: number; share_expires_at: string | null };

/** The groups a group is shared with, oldest share first. */
export function sharedWithGroups(db: Db, sharedGroupId: number): SharedWithGroupRow[] {
  return prepare(
    db,
    `SELECT n.*, l.group_access, l.expires_at AS share_expires_at
     FROM group_group_links l JOIN namespaces n ON n.id = l.shared_with_group_id WHERE l.shared_group_id = ? ORDER BY l.id`,
  ).all(sharedGroupId) as SharedWithGroupRow[];
}
