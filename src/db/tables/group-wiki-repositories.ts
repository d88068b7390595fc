import type { Db } from '../connection.js';
import { prepare } from '../connection.js';

/** A group wiki repository the primary holds: its group and the refs checksum after its last change. */
export interface GroupWikiRepositoryRow {
  id: number;
  group_id: number;
  checksum: string | null;
  checksum_updated_at: string | null;
  created_at: string;
}

export function findGroupWikiRepository(db: Db, groupId: number): GroupWikiRepositoryRow | undefined {
  return prepare(db, 'SELECT * FROM group_wiki_repositories WHERE group_id = ?').get(groupId) as GroupWikiRepositoryRow | undefined;
}

/** Records the wiki's checksum (null: none could be computed), creating its row the first time. */
export function upsertGroupWikiRepository(db: Db, groupId: number, checksum: string | null, at: string): void {
  prepare(
    db,
    `INSERT INTO group_wiki_repositories (group_id, checksum, checksum_updated_at, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (group_id) DO UPDATE SET checksum = excluded.checksum, checksum_updated_at = excluded.checksum_updated_at`,
  ).run(groupId, checksum, at, at);
}

/** The groups among `groupIds` that have a wiki repository. */
export function groupIdsWithWiki(db: Db, groupIds: readonly number[]): number[] {
  if (!groupIds.length) return [];
  return prepare(db, `SELECT group_id FROM group_wiki_repositories WHERE group_id IN (${groupIds.map(() => '?').join(', ')}) ORDER BY group_id`)
    .pluck()
    .all(...groupIds) as number[];
}
