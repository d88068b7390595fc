import type { Page } from '../../db/page.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { notFound } from '../../errors.js';
import type { SiteContext } from '../../site-context.js';
import { listCommits, readCommit, type CommitRecord, type LogFilter } from '../../git/commit-log.js';
import { diffFiles, diffStats, type DiffStats, type FileDiff } from '../../git/diff.js';
import { hasRepository, repositoryOf } from '../../git/in-repository.js';
import { isEmptyRepository, refsContaining, resolveCommit } from '../../git/refs.js';

/** The commit `ref` names in the project's repository; 404 `Commit` when it names none. */
export async function commitOf(repository: string, ref: string): Promise<string> {
  const sha = await resolveCommit(repository, ref);
  if (!sha) throw notFound('Commit');
  return sha;
}

/** The history of every ref at once (GitLab's `all=true`: `git log --all`, whatever ref_name says). */
export const ALL_REFS = Symbol('all refs');

/**
 * One page of the history of `ref` (the default branch when absent), newest first, and its total.
 * A new project has no commits yet: an empty page, as GitLab answers for an empty repository.
 */
export async function commitHistory(ctx: SiteContext, project: ProjectRow, ref: string | typeof ALL_REFS | undefined, filter: LogFilter, page: Page): Promise<{ commits: CommitRecord[]; total: number }> {
  const repository = repositoryOf(ctx, project);
  if (ref === ALL_REFS) {
    if (!(await hasRepository(repository))) return { commits: [], total: 0 };
    return listCommits(repository, ['--all'], filter, page.offset, page.perPage);
  }
  const sha = await resolveCommit(repository, ref || project.default_branch);
  if (!sha) {
    if (!ref && (await isEmptyRepository(repository))) return { commits: [], total: 0 };
    throw notFound('Commit');
  }
  return listCommits(repository, [sha], filter, page.offset, page.perPage);
}

/** The commit `ref` names, with the lines its first parent's diff adds and removes. */
export async function commitWithStats(ctx: SiteContext, project: ProjectRow, ref: string): Promise<{ commit: CommitRecord; stats: DiffStats }> {
  const repository = repositoryOf(ctx, project);
  const commit = await readCommit(repository, await commitOf(repository, ref));
  return { commit, stats: await diffStats(repository, commit.parentIds[0] ?? null, commit.id) };
}

/** The file diffs of the commit `ref` names, against its first parent. */
export async function commitDiff(ctx: SiteContext, project: ProjectRow, ref: string): Promise<FileDiff[]> {
  const repository = repositoryOf(ctx, project);
  const commit = await readCommit(repository, await commitOf(repository, ref));
  return diffFiles(repository, commit.parentIds[0] ?? null, commit.id);
}

/** The branches and tags holding the commit `ref` names (GitLab's commits/:sha/refs): branches first; 404 `Commit`. */
export async function commitRefs(ctx: SiteContext, project: ProjectRow, ref: string, type: 'branch' | 'tag' | 'all'): Promise<{ type: 'branch' | 'tag'; name: string }[]> {
  const repository = repositoryOf(ctx, project);
  const sha = await commitOf(repository, ref);
  return refsContaining(repository, sha, { branches: type !== 'tag', tags: type !== 'branch' });
}
