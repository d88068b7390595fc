import type { Page } from '../../db/page.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { badRequest, notFound } from '../../errors.js';
import { commitAuthors, mergeBase, readCommit, type CommitRecord } from '../../git/commit-log.js';
import { hasRepository, repositoryOf } from '../../git/in-repository.js';
import { isEmptyRepository, resolveCommit } from '../../git/refs.js';
import type { GitStream } from '../../git/cli.js';
import { findBlob, listTree, readBlob, streamBlob, type TreeEntry } from '../../git/tree.js';
import type { SiteContext } from '../../site-context.js';

/**
 * Browsing a repository (GitLab's lib/api/repositories.rb): its trees, blobs, contributors and the
 * merge base of refs. The routes have checked download_code.
 */

const TYPE_ORDER: Record<TreeEntry['type'], number> = { tree: 0, blob: 1, commit: 2 };

/** `path` without the slashes around it; '' is the root. */
export const treePathOf = (path: string | undefined): string => (path ?? '').replace(/^\/+|\/+$/g, '');

/**
 * One page of the tree at `path` of `ref` (the default branch when absent), GitLab's sorted_entries:
 * directories, then files, then submodules, each in git's order. 404 `Tree` when the ref names no
 * commit (an empty repository too); a path with no directory there lists nothing, as GitLab 10.x.
 */
export async function listRepositoryTree(
  ctx: SiteContext,
  project: ProjectRow,
  options: { ref?: string; path?: string; recursive: boolean },
  page: Page,
): Promise<{ rows: TreeEntry[]; total: number }> {
  const repository = repositoryOf(ctx, project);
  const commit = await resolveCommit(repository, options.ref || project.default_branch);
  if (!commit) throw notFound('Tree');
  const entries = (await listTree(repository, commit, treePathOf(options.path), options.recursive)) ?? [];
  const sorted = entries.map((entry, index) => ({ entry, index })).sort((a, b) => TYPE_ORDER[a.entry.type] - TYPE_ORDER[b.entry.type] || a.index - b.index);
  return { rows: sorted.slice(page.offset, page.offset + page.perPage).map(({ entry }) => entry), total: sorted.length };
}

/** A blob by its (possibly abbreviated) id; 404 `Blob` when the repository has no such blob. */
async function findProjectBlob(ctx: SiteContext, project: ProjectRow, sha: string): Promise<{ id: string; size: number }> {
  const repository = repositoryOf(ctx, project);
  const blob = (await hasRepository(repository)) ? await findBlob(repository, sha) : null;
  if (!blob) throw notFound('Blob');
  return blob;
}

/** A blob to stream (blobs/:sha/raw): its id and size, and the git that writes its bytes; 404 `Blob`. */
export async function openProjectBlob(ctx: SiteContext, project: ProjectRow, sha: string): Promise<{ id: string; size: number; start(): GitStream }> {
  const blob = await findProjectBlob(ctx, project, sha);
  return { ...blob, start: () => streamBlob(repositoryOf(ctx, project), blob.id) };
}

/** A blob with its bytes (GitLab's blobs/:sha answers them base64). */
export async function readProjectBlob(ctx: SiteContext, project: ProjectRow, sha: string): Promise<{ id: string; size: number; content: Buffer }> {
  const blob = await findProjectBlob(ctx, project, sha);
  return { ...blob, content: await readBlob(repositoryOf(ctx, project), blob.id) };
}

/** A contributor as GitLab counts them: by author email, named after their newest commit; additions and deletions are not counted (0). */
export interface Contributor {
  readonly name: string;
  readonly email: string;
  readonly commits: number;
}

/** How many commits GitLab reads to count contributors. */
const CONTRIBUTOR_COMMITS = 2000;

/**
 * The contributors of `ref` (the default branch when absent), merges left out, ordered by `orderBy`
 * (GitLab's default: commits ascending). An empty repository has none; a ref that names no commit
 * is 404, as GitLab's rescue answers.
 */
export async function listContributors(ctx: SiteContext, project: ProjectRow, options: { ref?: string; orderBy: 'name' | 'email' | 'commits'; sort: 'asc' | 'desc' }): Promise<Contributor[]> {
  const repository = repositoryOf(ctx, project);
  const commit = await resolveCommit(repository, options.ref || project.default_branch);
  if (!commit) {
    if (!options.ref && (await isEmptyRepository(repository))) return [];
    throw notFound();
  }
  const byEmail = new Map<string, { name: string; email: string; commits: number }>();
  for (const author of await commitAuthors(repository, commit, CONTRIBUTOR_COMMITS)) {
    const entry = byEmail.get(author.email);
    if (entry) entry.commits += 1;
    else byEmail.set(author.email, { name: author.name, email: author.email, commits: 1 });
  }
  const { orderBy } = options;
  const direction = options.sort === 'desc' ? -1 : 1;
  return [...byEmail.values()].sort((a, b) => direction * (a[orderBy] < b[orderBy] ? -1 : a[orderBy] > b[orderBy] ? 1 : 0));
}

/**
 * The merge base of two or more refs (GitLab's Gitlab::Git::MergeBase): 400 `Provide at least 2
 * refs`, 400 `Could not find ref(s): ...` naming every unknown one, 404 `Merge Base` for unrelated
 * histories.
 */
export async function findMergeBase(ctx: SiteContext, project: ProjectRow, refs: readonly string[]): Promise<CommitRecord> {
  if (refs.length < 2) throw badRequest('Provide at least 2 refs');
  const repository = repositoryOf(ctx, project);
  const shas = await Promise.all(refs.map((ref) => resolveCommit(repository, ref)));
  const unknown = refs.filter((_, i) => shas[i] === null);
  if (unknown.length) throw badRequest(`Could not find ${unknown.length === 1 ? 'ref' : 'refs'}: ${unknown.join(', ')}`);
  const [first, second, ...more] = shas as string[];
  const base = await mergeBase(repository, first!, second!, ...more);
  if (!base) throw notFound('Merge Base');
  return readCommit(repository, base);
}
