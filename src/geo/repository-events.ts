import path from 'node:path';
import type { Db } from '../db/connection.js';
import { inTransaction, prepare } from '../db/connection.js';
import { repositoryPath, wikiRepositoryPath } from '../storage/layout.js';
import { nowIso } from '../storage/clock.js';
import { appendBlobEvent } from './blobs.js';
import { refsChecksum } from './repository-checksum.js';
import { oneAtATimeInSite } from '../git/ref-lock.js';

/** The two git repositories a project may have on disk. */
export type RepositoryType = 'repository' | 'wiki';

/** The repository's absolute path on this site. */
export const repositoryOnDisk = (dataDir: string, projectId: number, type: RepositoryType): string =>
  type === 'wiki' ? wikiRepositoryPath(dataDir, projectId) : repositoryPath(dataDir, projectId);

/**
 * The path a blob event carries: relative to the data dir, with `/`. Hashed storage derives it
 * from the project id alone (the same on every site), so it is the layout under an empty root.
 */
const blobPath = (projectId: number, type: RepositoryType) => repositoryOnDisk('', projectId, type).split(path.sep).join('/');

const STATE_COLUMNS = {
  repository: { checksum: 'repository_checksum', updatedAt: 'repository_updated_at' },
  wiki: { checksum: 'wiki_checksum', updatedAt: 'wiki_updated_at' },
} as const;

/**
 * Records, on the primary, that a project's repository or wiki changed on disk (created by a
 * create, an import, a fork or a wiki's first use; updated by a push, a commit through the API
 * or a new HEAD): the refs checksum is computed first (outside any transaction), then
 * repository_states and the blob event commit together; an update that moved nothing appends
 * nothing. A project deleted meanwhile gets
 * nothing (its `deleted` events were appended with its deletion). Call it after the change is
 * durable. A checksum that fails does not fail the caller: the event is appended (checksum
 * null) and the project's repository_states row dropped, for the fill job to recompute
 * (fillRepositoryStates), so no change goes unreplicated.
 */
export function recordRepositoryChange(
  db: Db,
  dataDir: string,
  projectId: number,
  type: RepositoryType,
  action: 'created' | 'updated',
): Promise<void> {
  const repository = repositoryOnDisk(dataDir, projectId, type);
  // One checksum at a time per repository, site-wide, each followed by its commit: two pushes close
  // together (through two workers too) never commit their checksums out of order.
  return oneAtATimeInSite(repository, async () => {
    const checksum = await refsChecksum(repository).then(
      (value) => ({ value }),
      () => null,
    );
    inTransaction(db, () => {
      if (!prepare(db, 'SELECT 1 FROM projects WHERE id = ?').get(projectId)) return;
      // An update that changed no ref (and not HEAD) has nothing for a secondary to fetch.
      if (action === 'updated' && checksum?.value && checksum.value === recordedChecksum(db, projectId, type)) return;
      if (checksum) upsertRepositoryState(db, projectId, type, checksum.value);
      else prepare(db, 'DELETE FROM repository_states WHERE project_id = ?').run(projectId);
      appendBlobEvent(db, { type, action, id: projectId, project_id: projectId, path: blobPath(projectId, type), checksum: checksum?.value ?? null, size: null });
    });
  });
}

/** The checksum repository_states holds for one of the project's repositories; null when none is recorded. */
function recordedChecksum(db: Db, projectId: number, type: RepositoryType): string | null {
  const { checksum: column } = STATE_COLUMNS[type];
  return (prepare(db, `SELECT ${column} FROM repository_states WHERE project_id = ?`).pluck().get(projectId) as string | null | undefined) ?? null;
}

/** Sets one repository's checksum in the project's repository_states row, creating the row when missing. */
function upsertRepositoryState(db: Db, projectId: number, type: RepositoryType, checksum: string | null): void {
  const { checksum: column, updatedAt } = STATE_COLUMNS[type];
  prepare(
    db,
    `INSERT INTO repository_states (project_id, ${column}, ${updatedAt}) VALUES (?, ?, ?)
     ON CONFLICT (project_id) DO UPDATE SET ${column} = excluded.${column}, ${updatedAt} = excluded.${updatedAt}`,
  ).run(projectId, checksum, nowIso());
}

/**
 * Appends a deleted project's `repository` and `wiki` deleted events. Call it inside the
 * transaction that deletes the project row, so the row and its events commit or roll back
 * together; a secondary then drops every copy of that project (registry/record-event.ts). The
 * repository_states row goes with the project row (ON DELETE CASCADE).
 */
export function recordProjectDeleted(db: Db, projectId: number): void {
  for (const type of ['repository', 'wiki'] as const) {
    appendBlobEvent(db, { type, action: 'deleted', id: projectId, project_id: projectId, path: blobPath(projectId, type), checksum: null, size: null });
  }
}

/**
 * Appends `renamed` events for a project whose name, path or namespace changed, for each of its
 * repositories the inventory lists, inside the transaction that renames it. Hashed storage moves
 * nothing on disk, so the recorded checksums still hold; GitLab emits the event all the same and
 * a secondary re-checks its copies.
 */
export function recordProjectRenamed(db: Db, projectId: number): void {
  const state = prepare(db, 'SELECT repository_checksum, wiki_checksum FROM repository_states WHERE project_id = ?').get(projectId) as
    | { repository_checksum: string | null; wiki_checksum: string | null }
    | undefined;
  const checksums = { repository: state?.repository_checksum ?? null, wiki: state?.wiki_checksum ?? null };
  for (const type of ['repository', 'wiki'] as const) {
    const checksum = checksums[type];
    if (checksum !== null) appendBlobEvent(db, { type, action: 'renamed', id: projectId, project_id: projectId, path: blobPath(projectId, type), checksum, size: null });
  }
}
