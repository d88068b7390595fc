import type { ProjectRow } from '../../db/tables/projects.js';
import type { BranchRecord } from '../../entities/repository.js';
import { AppError, badRequest, notFound } from '../../errors.js';
import { GitError } from '../../git/cli.js';
import type { SiteContext } from '../../site-context.js';
import type { Actor } from '../users/authentication.js';
import { notifyPush } from './commit-writer.js';
import { readCommits } from '../../git/commit-log.js';
import { git, repositoryOf } from '../../git/in-repository.js';
import { branchCommit, branchesMergedInto, isValidBranchName, listBranchHeads, resolveCommit } from '../../git/refs.js';
import { BLANK_SHA } from '../../git/object-names.js';

/** GitLab's branch search: a substring, `^x` a prefix, `x$` a suffix; case-insensitive. */
function matches(name: string, search: string): boolean {
  const lower = name.toLowerCase();
  let term = search.toLowerCase();
  const prefix = term.startsWith('^');
  const suffix = term.endsWith('$');
  if (prefix) term = term.slice(1);
  if (suffix) term = term.slice(0, -1);
  if (prefix && suffix) return lower === term;
  if (prefix) return lower.startsWith(term);
  if (suffix) return lower.endsWith(term);
  return lower.includes(term);
}

/** Branches merged into the default one: its ancestors, not at its own head (GitLab's merged_to_root_ref?). */
async function records(repository: string, project: ProjectRow, branches: { name: string; sha: string }[]): Promise<BranchRecord[]> {
  const defaultSha = await branchCommit(repository, project.default_branch);
  const merged = defaultSha && branches.length ? await branchesMergedInto(repository, defaultSha) : new Set<string>();
  const commits = await readCommits(
    repository,
    branches.map((branch) => branch.sha),
  );
  const byId = new Map(commits.map((commit) => [commit.id, commit]));
  return branches.map((branch) => ({
    name: branch.name,
    commit: byId.get(branch.sha)!,
    isDefault: branch.name === project.default_branch,
    merged: branch.name !== project.default_branch && branch.sha !== defaultSha && merged.has(branch.name),
  }));
}

export async function listBranches(ctx: SiteContext, project: ProjectRow, search: string | undefined, offset: number, limit: number) {
  const repository = repositoryOf(ctx, project);
  const all = (await listBranchHeads(repository)).filter((branch) => !search || matches(branch.name, search));
  return { rows: await records(repository, project, all.slice(offset, offset + limit)), total: all.length };
}

export async function getBranch(ctx: SiteContext, project: ProjectRow, name: string): Promise<BranchRecord> {
  const repository = repositoryOf(ctx, project);
  const sha = await branchCommit(repository, name);
  if (!sha) throw notFound('Branch');
  return (await records(repository, project, [{ name, sha }]))[0]!;
}

export async function createBranch(ctx: SiteContext, project: ProjectRow, actor: Actor, name: string, ref: string): Promise<BranchRecord> {
  const repository = repositoryOf(ctx, project);
  if (!(await isValidBranchName(name))) throw badRequest('Branch name is invalid');
  if (await branchCommit(repository, name)) throw badRequest('Branch already exists');
  const sha = await resolveCommit(repository, ref);
  if (!sha) throw badRequest('Invalid reference name');
  try {
    await git(repository, ['update-ref', '-m', `geoforge: branch created by ${actor.user.username}`, `refs/heads/${name}`, sha, BLANK_SHA]);
  } catch (error) {
    if (error instanceof GitError) throw badRequest('Branch already exists');
    throw error;
  }
  await notifyPush(ctx, project, actor, name, BLANK_SHA, sha);
  return getBranch(ctx, project, name);
}

/** Deletes a branch; the default one is refused with GitLab's 405 `Cannot remove the default branch`. */
export async function deleteBranch(ctx: SiteContext, project: ProjectRow, actor: Actor, name: string): Promise<void> {
  const repository = repositoryOf(ctx, project);
  const sha = await branchCommit(repository, name);
  if (!sha) throw notFound('Branch');
  if (name === project.default_branch) throw new AppError('not_allowed', 'Cannot remove the default branch');
  try {
    await git(repository, ['update-ref', '-d', `refs/heads/${name}`, sha]);
  } catch (error) {
    if (error instanceof GitError) throw badRequest(`Could not delete branch '${name}': it was changed by another push; please retry`);
    throw error;
  }
  await notifyPush(ctx, project, actor, name, sha, BLANK_SHA);
}
