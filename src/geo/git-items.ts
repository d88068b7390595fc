import type { Db } from '../db/connection.js';
import { prepare } from '../db/connection.js';
import { repositoryPath, snippetRepositoryPath, wikiRepositoryPath } from '../storage/layout.js';

/** The replicated items that are git repositories: a project's repository and wiki (by project id), a snippet's repository (by snippet id). */
export type GitItemType = 'repository' | 'wiki' | 'snippet_repository';

export const isGitItemType = (type: string): type is GitItemType => type === 'repository' || type === 'wiki' || type === 'snippet_repository';

/** A git item's absolute path on this site. */
export function gitItemOnDisk(dataDir: string, type: GitItemType, itemId: number): string {
  if (type === 'snippet_repository') return snippetRepositoryPath(dataDir, itemId);
  return type === 'wiki' ? wikiRepositoryPath(dataDir, itemId) : repositoryPath(dataDir, itemId);
}

/** Where the primary's refs checksum of each git type is recorded, in replicated rows (repository_states, snippets). */
const PRIMARY_CHECKSUM_SQL: Readonly<Record<GitItemType, string>> = {
  repository: 'SELECT repository_checksum FROM repository_states WHERE project_id = ?',
  wiki: 'SELECT wiki_checksum FROM repository_states WHERE project_id = ?',
  snippet_repository: 'SELECT repository_checksum FROM snippets WHERE id = ?',
};

/** The primary's refs checksum of a git item as the replicated database holds it (as fresh as the applied events); null when none is recorded. */
export function primaryRefsChecksum(db: Db, type: GitItemType, itemId: number): string | null {
  return (prepare(db, PRIMARY_CHECKSUM_SQL[type]).pluck().get(itemId) as string | null | undefined) ?? null;
}

/** Whether the item's owning row (its project, its snippet) still exists in the replicated database. */
export function gitItemExists(db: Db, type: GitItemType, itemId: number): boolean {
  const sql = type === 'snippet_repository' ? 'SELECT 1 FROM snippets WHERE id = ?' : 'SELECT 1 FROM projects WHERE id = ?';
  return prepare(db, sql).get(itemId) !== undefined;
}
