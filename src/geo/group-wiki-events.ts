import path from 'node:path';
import type { Db } from '../db/connection.js';
import { inTransaction, prepare } from '../db/connection.js';
import { findGroupWikiRepository, groupIdsWithWiki, upsertGroupWikiRepository } from '../db/tables/group-wiki-repositories.js';
import { nowIso } from '../storage/clock.js';
import { groupWikiRepositoryPath } from '../storage/layout.js';
import { appendBlobEvent } from './blobs.js';
import { refsChecksum } from './repository-checksum.js';
import { oneAtATimeInSite } from '../git/ref-lock.js';

/** The path a group wiki's blob event carries: relative to the data dir, with `/` (the same on every site). */
export const groupWikiBlobPath = (groupId: number): string => groupWikiRepositoryPath('', groupId).split(path.sep).join('/');

/**
 * Records, on the primary, that a group's wiki repository changed on disk (created on first
 * write or push, updated by an API write or a push), as recordRepositoryChange does for a
 * project's: the refs checksum first (outside any transaction), then the group_wiki_repositories
 * row and the blob event in one transaction. An update that moved nothing appends nothing; a group
 * deleted meanwhile gets nothing (its `deleted` event went with it). A checksum that fails still
 * appends the event (checksum null), so the change replicates.
 */
export function recordGroupWikiChange(db: Db, dataDir: string, groupId: number, action: 'created' | 'updated'): Promise<void> {
  const repository = groupWikiRepositoryPath(dataDir, groupId);
  return oneAtATimeInSite(repository, async () => {
    const checksum = await refsChecksum(repository).then(
      (value) => value,
      () => null,
    );
    inTransaction(db, () => {
      if (!prepare(db, "SELECT 1 FROM namespaces WHERE id = ? AND kind = 'group'").get(groupId)) return;
      const recorded = findGroupWikiRepository(db, groupId);
      if (action === 'updated' && recorded && checksum !== null && checksum === recorded.checksum) return;
      upsertGroupWikiRepository(db, groupId, checksum, nowIso());
      appendBlobEvent(db, { type: 'group_wiki_repository', action: recorded ? action : 'created', id: groupId, project_id: null, path: groupWikiBlobPath(groupId), checksum, size: null });
    });
  });
}

/**
 * Appends the `deleted` event of each wiki among groups being deleted and returns their ids (their
 * repositories to remove after the commit). Call it inside the transaction that deletes the group
 * rows, before they go: the rows and the events commit together.
 */
export function recordGroupWikisDeleted(db: Db, groupIds: readonly number[]): number[] {
  const withWiki = groupIdsWithWiki(db, groupIds);
  for (const id of withWiki) {
    appendBlobEvent(db, { type: 'group_wiki_repository', action: 'deleted', id, project_id: null, path: groupWikiBlobPath(id), checksum: null, size: null });
  }
  return withWiki;
}

/**
 * The group wikis' counterpart of fillRepositoryStates and reconcileRepositoryStates, run by the
 * same primary job: every wiki whose checksum failed (NULL: the inventory does not list it) is
 * checksummed again, and with `all` (once per start) every wiki is compared with its disk, so a
 * change a crash kept from its event is recorded now. Reads refs files only. Resolves to the
 * wikis recorded; rejects after the walk when some could not be read.
 */
export async function reconcileGroupWikis(db: Db, dataDir: string, options: { all: boolean; pageSize?: number }): Promise<number> {
  const pageSize = options.pageSize ?? 100;
  const failures: unknown[] = [];
  let after = 0;
  let recorded = 0;
  for (;;) {
    const rows = prepare(db, `SELECT id, group_id, checksum FROM group_wiki_repositories WHERE id > ? ${options.all ? '' : 'AND checksum IS NULL'} ORDER BY id LIMIT ?`).all(after, pageSize) as {
      id: number;
      group_id: number;
      checksum: string | null;
    }[];
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.id;
    for (const row of rows) {
      try {
        const onDisk = await refsChecksum(groupWikiRepositoryPath(dataDir, row.group_id));
        if (onDisk === null || onDisk === row.checksum) continue;
        await recordGroupWikiChange(db, dataDir, row.group_id, 'updated');
        recorded++;
      } catch (error) {
        failures.push(new Error(`reconcile the wiki of group ${row.group_id}`, { cause: error }));
      }
    }
  }
  if (failures.length) throw new AggregateError(failures, `${failures.length} group wikis not reconciled`);
  return recorded;
}
