import type { Db } from '../db/connection.js';
import { prepare } from '../db/connection.js';
import { groupWikiRepositoryPath, repositoryPath, snippetRepositoryPath, wikiRepositoryPath } from '../storage/layout.js';
import { GIT_BLOB_TYPES } from './blobs.js';

/**
 * The replicated items that are git repositories: a project's repository and wiki (by project id),
 * a snippet's repository (by snippet id), a group's wiki (by group id).
 */
export type GitItemType = (typeof GIT_BLOB_TYPES)[number];

export const isGitItemType = (type: string): type is GitItemType => (GIT_BLOB_TYPES as readonly string[]).includes(type);

const ON_DISK: Readonly<Record<GitItemType, (dataDir: string, itemId: number) => string>> = {
  repository: repositoryPath,
  wiki: wikiRepositoryPath,
  snippet_repository: snippetRepositoryPath,
  group_wiki_repository: groupWikiRepositoryPath,
};

/** A git item's absolute path on this site. */
export function gitItemOnDisk(dataDir: string, type: GitItemType, itemId: number): string {
  return ON_DISK[type](dataDir, itemId);
}

/** Where the primary's refs checksum of each git type is recorded, in replicated rows (repository_states, snippets, group_wiki_repositories). */
const PRIMARY_CHECKSUM_SQL: Readonly<Record<GitItemType, string>> = {
  repository: 'SELECT repository_checksum FROM repository_states WHERE project_id = ?',
  wiki: 'SELECT wiki_checksum FROM repository_states WHERE project_id = ?',
  snippet_repository: 'SELECT repository_checksum FROM snippets WHERE id = ?',
  group_wiki_repository: 'SELECT checksum FROM group_wiki_repositories WHERE group_id = ?',
};

/** The row that owns each git type's item. */
const OWNER_SQL: Readonly<Record<GitItemType, string>> = {
  repository: 'SELECT 1 FROM projects WHERE id = ?',
  wiki: 'SELECT 1 FROM projects WHERE id = ?',
  snippet_repository: 'SELECT 1 FROM snippets WHERE id = ?',
  group_wiki_repository: "SELECT 1 FROM namespaces WHERE id = ? AND kind = 'group'",
};

/** The primary's refs checksum of a git item as the replicated database holds it (as fresh as the applied events); null when none is recorded. */
export function primaryRefsChecksum(db: Db, type: GitItemType, itemId: number): string | null {
  return (prepare(db, PRIMARY_CHECKSUM_SQL[type]).pluck().get(itemId) as string | null | undefined) ?? null;
}

/** Whether the item's owning row (its project, its snippet, its group) still exists in the replicated database. */
export function gitItemExists(db: Db, type: GitItemType, itemId: number): boolean {
  return prepare(db, OWNER_SQL[type]).get(itemId) !== undefined;
}
