import path from 'node:path';
import type { Db } from '../db/connection.js';
import { inTransaction } from '../db/connection.js';
import { findSnippetById, setSnippetRepositoryChecksum, snippetIdsOfProject } from '../db/tables/snippets.js';
import { nowIso } from '../storage/clock.js';
import { snippetRepositoryPath } from '../storage/layout.js';
import { appendBlobEvent } from './blobs.js';
import { refsChecksum } from './repository-checksum.js';
import { oneAtATimeInSite } from '../git/ref-lock.js';

/** The path a snippet repository's blob event carries: relative to the data dir, with `/` (the same on every site). */
export const snippetBlobPath = (snippetId: number): string => snippetRepositoryPath('', snippetId).split(path.sep).join('/');

/**
 * Records, on the primary, that a snippet's repository changed on disk (created with the snippet,
 * updated by an API write or a push), as recordRepositoryChange does for projects: the refs
 * checksum first, then the snippet's checksum and the blob event in one transaction; an update
 * that moved nothing appends nothing, a snippet deleted meanwhile gets nothing. A checksum that
 * fails still appends the event (checksum null), so the change replicates.
 */
export function recordSnippetRepositoryChange(db: Db, dataDir: string, snippetId: number, action: 'created' | 'updated'): Promise<void> {
  const repository = snippetRepositoryPath(dataDir, snippetId);
  return oneAtATimeInSite(repository, async () => {
    const checksum = await refsChecksum(repository).then(
      (value) => value,
      () => null,
    );
    inTransaction(db, () => {
      const snippet = findSnippetById(db, snippetId);
      if (!snippet) return;
      if (action === 'updated' && checksum !== null && checksum === snippet.repository_checksum) return;
      setSnippetRepositoryChecksum(db, snippetId, checksum, nowIso());
      appendBlobEvent(db, { type: 'snippet_repository', action, id: snippetId, project_id: snippet.project_id, path: snippetBlobPath(snippetId), checksum, size: null });
    });
  });
}

/**
 * Appends a deleted snippet's repository `deleted` event. Call it inside the transaction that
 * deletes the snippet row (or its project's, which takes its snippets along), so both commit together.
 */
export function recordSnippetRepositoryDeleted(db: Db, snippetId: number, projectId: number | null): void {
  appendBlobEvent(db, { type: 'snippet_repository', action: 'deleted', id: snippetId, project_id: projectId, path: snippetBlobPath(snippetId), checksum: null, size: null });
}

/** recordSnippetRepositoryDeleted for every snippet of a project being deleted (call it before the project row goes). */
export function recordProjectSnippetsDeleted(db: Db, projectId: number): number[] {
  const ids = snippetIdsOfProject(db, projectId);
  for (const id of ids) recordSnippetRepositoryDeleted(db, id, projectId);
  return ids;
}
