import type { ProjectRow } from '../../db/tables/projects.js';
import type { BranchRecord } from '../../entities/repository.js';
import { AppError, badRequest, forbidden, notFound } from '../../errors.js';
import { GitError } from '../../git/cli.js';
import type { SiteContext } from '../../site-context.js';
import type { Actor } from '../users/authentication.js';
import { notifyPush, writeCommit } from './commit-writer.js';
import { readCommit, readCommits } from '../../git/commit-log.js';
import { git, repositoryOf } from '../../git/in-repository.js';
import { branchCommit, branchesMergedInto, headsMergedInto, isEmptyRepository, isValidBranchName, listBranchHeads, resolveCommit } from '../../git/refs.js';
import { BLANK_SHA } from '../../git/object-names.js';
import { branchProtection, refChangeRefusal, refPolicyFor, type RefPolicy } from './ref-policy.js';
import { assertUnmodifiedSince } from '../unmodified-since.js';

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
async function records(repository: string, project: ProjectRow, policy: RefPolicy, branches: { name: string; sha: string }[]): Promise<BranchRecord[]> {
  const defaultSha = await branchCommit(repository, project.default_branch);
  const merged = defaultSha && branches.length ? await headsMergedInto(repository, defaultSha, branches) : new Set<string>();
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
    protection: branchProtection(policy, branch.name),
  }));
}

export async function listBranches(ctx: SiteContext, project: ProjectRow, actor: Actor | null, search: string | undefined, offset: number, limit: number) {
  const repository = repositoryOf(ctx, project);
  const all = (await listBranchHeads(repository)).filter((branch) => !search || matches(branch.name, search));
  return { rows: await records(repository, project, refPolicyFor(ctx.db, actor, project), all.slice(offset, offset + limit)), total: all.length };
}

export async function getBranch(ctx: SiteContext, project: ProjectRow, actor: Actor | null, name: string): Promise<BranchRecord> {
  const repository = repositoryOf(ctx, project);
  const sha = await branchCommit(repository, name);
  if (!sha) throw notFound('Branch');
  return (await records(repository, project, refPolicyFor(ctx.db, actor, project), [{ name, sha }]))[0]!;
}

/**
 * Creates a branch at any ref (branch, tag or sha). Creating a branch a protected row covers
 * needs the right to push there, as GitLab's hooks check an API ref change (400 with the hook's message).
 * In an empty repository the default branch is made first with an empty README.md (GitLab 17's
 * Branches::CreateService#create_default_branch), so the new branch has a commit to start from;
 * unlike GitLab, an invalid branch name is refused before that commit is written.
 */
export async function createBranch(ctx: SiteContext, project: ProjectRow, actor: Actor, name: string, ref: string): Promise<BranchRecord> {
  const repository = repositoryOf(ctx, project);
  if (!(await isValidBranchName(name))) throw badRequest('Branch name is invalid');
  if (await isEmptyRepository(repository)) {
    const readme = { action: 'create' as const, filePath: 'README.md', content: Buffer.alloc(0) };
    await writeCommit(ctx, project, actor, { branch: project.default_branch, message: 'Add README.md', actions: [readme] });
  }
  if (await branchCommit(repository, name)) throw badRequest('Branch already exists');
  const sha = await resolveCommit(repository, ref);
  if (!sha) throw badRequest('Invalid reference name');
  const refusal = refChangeRefusal(refPolicyFor(ctx.db, actor, project), { ref: `refs/heads/${name}`, before: BLANK_SHA, after: sha, forced: false }, 'web');
  if (refusal) throw badRequest(refusal);
  try {
    await git(repository, ['update-ref', '-m', `geoforge: branch created by ${actor.user.username}`, `refs/heads/${name}`, sha, BLANK_SHA]);
  } catch (error) {
    if (error instanceof GitError) throw badRequest('Branch already exists');
    throw error;
  }
  await notifyPush(ctx, project, actor, name, BLANK_SHA, sha);
  return getBranch(ctx, project, actor, name);
}

/**
 * Deletes a branch; the default one is refused with GitLab's 405 `Cannot remove the default
 * branch`, a protected one (403) unless the caller is a maintainer (the API counts as GitLab's web).
 */
export async function deleteBranch(ctx: SiteContext, project: ProjectRow, actor: Actor, name: string, unmodifiedSince: number | null): Promise<void> {
  const repository = repositoryOf(ctx, project);
  const sha = await branchCommit(repository, name);
  if (!sha) throw notFound('Branch');
  // GitLab compares the head commit's author date (destroy_conditionally!, last_updated: authored_date).
  if (unmodifiedSince !== null) assertUnmodifiedSince(unmodifiedSince, (await readCommit(repository, sha)).authoredDate);
  if (name === project.default_branch) throw new AppError('not_allowed', 'Cannot remove the default branch');
  const refusal = refChangeRefusal(refPolicyFor(ctx.db, actor, project), { ref: `refs/heads/${name}`, before: sha, after: BLANK_SHA, forced: false }, 'web');
  if (refusal) throw forbidden(refusal);
  await removeBranchRef(repository, name, sha);
  await notifyPush(ctx, project, actor, name, sha, BLANK_SHA);
}

async function removeBranchRef(repository: string, name: string, sha: string): Promise<void> {
  try {
    await git(repository, ['update-ref', '-d', `refs/heads/${name}`, sha]);
  } catch (error) {
    if (error instanceof GitError) throw badRequest(`Could not delete branch '${name}': it was changed by another push; please retry`);
    throw error;
  }
}

/**
 * DELETE .../merged_branches (GitLab's DeleteMergedBranchesService): every branch merged into the
 * default one goes, but the default branch and protected ones. Runs after the 202 answer; a branch
 * moved meanwhile is kept (its delete compares the sha it was listed at). Resolves to the names deleted.
 */
export async function deleteMergedBranches(ctx: SiteContext, project: ProjectRow, actor: Actor): Promise<string[]> {
  const repository = repositoryOf(ctx, project);
  const policy = refPolicyFor(ctx.db, actor, project);
  const defaultSha = await branchCommit(repository, project.default_branch);
  if (!defaultSha) return [];
  const merged = await branchesMergedInto(repository, defaultSha);
  const deleted: string[] = [];
  for (const branch of await listBranchHeads(repository)) {
    if (!merged.has(branch.name) || branch.name === project.default_branch || branchProtection(policy, branch.name).protected) continue;
    try {
      await removeBranchRef(repository, branch.name, branch.sha);
    } catch (error) {
      // A branch pushed to since it was listed stays: it may no longer be merged.
      if (error instanceof AppError) continue;
      throw error;
    }
    deleted.push(branch.name);
    await notifyPush(ctx, project, actor, branch.name, branch.sha, BLANK_SHA);
  }
  return deleted;
}
