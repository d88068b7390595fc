import type { Page, Paged } from '../../db/page.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { listCommits, type CommitRecord } from '../../git/commit-log.js';
import { resolveCommit } from '../../git/refs.js';
import type { FoundBlob } from '../../entities/search.js';
import { grepBlobs } from '../../git/search.js';
import { repositoryPath, wikiRepositoryPath } from '../../storage/layout.js';
import type { SiteContext } from '../../site-context.js';
import { can } from '../permissions.js';
import type { Actor } from '../users/authentication.js';


const empty = <T>(): Paged<T> => ({ rows: [], total: 0 });

/**
 * Files of the project's repository at `ref` (default: the default branch) whose text contains
 * the text, one per file with its first match; nothing when the caller may not read the code or
 * the ref names no commit. git grep runs once per request, bounded by its timeout; the page is cut
 * from its sorted answer.
 */
export async function searchBlobs(ctx: SiteContext, actor: Actor, project: ProjectRow, text: string, ref: string | undefined, page: Page): Promise<Paged<FoundBlob>> {
  if (!can(ctx.db, actor, 'download_code', project)) return empty();
  return grepPage(repositoryPath(ctx.config.dataDir, project.id), ref ?? project.default_branch, project.id, text, page);
}

/** Pages of the project's wiki whose text contains the text (the wiki repository's HEAD), for callers who may read the wiki. */
export async function searchWikiBlobs(ctx: SiteContext, actor: Actor, project: ProjectRow, text: string, page: Page): Promise<Paged<FoundBlob>> {
  if (!can(ctx.db, actor, 'read_wiki', project)) return empty();
  return grepPage(wikiRepositoryPath(ctx.config.dataDir, project.id), 'HEAD', project.id, text, page);
}

async function grepPage(repository: string, ref: string, projectId: number, text: string, page: Page): Promise<Paged<FoundBlob>> {
  const commit = await resolveCommit(repository, ref);
  if (!commit) return empty();
  const found = await grepBlobs(repository, commit, text);
  const rows = found.slice(page.offset, page.offset + page.perPage).map((blob) => ({ ...blob, ref, projectId }));
  return { rows, total: found.length };
}

/** Commits reachable from `ref` (default: the default branch) whose message contains the text, newest first, for callers who may read the code. */
export async function searchCommits(ctx: SiteContext, actor: Actor, project: ProjectRow, text: string, ref: string | undefined, page: Page): Promise<Paged<CommitRecord>> {
  if (!can(ctx.db, actor, 'download_code', project)) return empty();
  const repository = repositoryPath(ctx.config.dataDir, project.id);
  const commit = await resolveCommit(repository, ref ?? project.default_branch);
  if (!commit) return empty();
  const { commits, total } = await listCommits(repository, [commit], { grep: text }, page.offset, page.perPage);
  return { rows: commits, total };
}
