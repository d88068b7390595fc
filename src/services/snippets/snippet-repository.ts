import { mkdir } from 'node:fs/promises';
import { badRequest } from '../../errors.js';
import { oneAtATimeInSite } from '../../git/ref-lock.js';
import { hasRepository } from '../../git/in-repository.js';
import { branchCommit, resolveCommit } from '../../git/refs.js';
import { createSnippetRepository, SNIPPET_DEFAULT_BRANCH } from '../../git/repositories.js';
import { commitTreeChanges, headBranch, readBlobs, treeFiles, type FileChange, type TreeFile } from '../../git/wiki-pages.js';
import { snippetRepositoryPath, tmpDir } from '../../storage/layout.js';
import type { SiteContext } from '../../site-context.js';
import type { Actor } from '../users/authentication.js';

/** A snippet repository's default branch (what HEAD names) and its commit; null commit while empty. */
export interface SnippetHead {
  readonly branch: string;
  readonly commit: string | null;
}

export const snippetRepositoryOf = (ctx: SiteContext, snippetId: number): string => snippetRepositoryPath(ctx.config.dataDir, snippetId);

/** The repository's HEAD branch and commit; the default branch when HEAD is detached or the repository is missing. */
export async function snippetHead(repository: string): Promise<SnippetHead> {
  const branch = (await headBranch(repository)) ?? SNIPPET_DEFAULT_BRANCH;
  return { branch, commit: (await hasRepository(repository)) ? await branchCommit(repository, branch) : null };
}

/** The files on the default branch, in git's path order: what the entity lists and `raw` reads the first of. */
export async function snippetFiles(repository: string): Promise<{ head: SnippetHead; files: TreeFile[] }> {
  const head = await snippetHead(repository);
  return { head, files: head.commit ? await treeFiles(repository, head.commit) : [] };
}

/** One file's bytes at a ref (a branch, tag or commit); null when the ref or the file is not there. */
export async function snippetFileAt(repository: string, ref: string, filePath: string): Promise<{ missing: 'Reference' | 'File' } | { content: Buffer }> {
  if (!(await hasRepository(repository))) return { missing: 'Reference' };
  const commit = await resolveCommit(repository, ref);
  if (!commit) return { missing: 'Reference' };
  const file = (await treeFiles(repository, commit)).find((candidate) => candidate.path === filePath);
  if (!file) return { missing: 'File' };
  return { content: (await readBlobs(repository, [file.blob])).get(file.blob)! };
}

/** The bytes of the first file on the default branch (GET .../raw); empty for a snippet without files. */
export async function firstSnippetFile(repository: string): Promise<Buffer> {
  const { files } = await snippetFiles(repository);
  if (!files.length) return Buffer.alloc(0);
  return (await readBlobs(repository, [files[0]!.blob])).get(files[0]!.blob)!;
}

/** Runs one write of a snippet's repository after the earlier ones in this process (the branch is read, built on, then moved). */
export function writingSnippet<T>(ctx: SiteContext, snippetId: number, work: () => Promise<T>): Promise<T> {
  return oneAtATimeInSite(`snippet-write:${snippetRepositoryOf(ctx, snippetId)}`, work);
}

/**
 * One commit by the actor on the snippet's default branch (the repository created on first use).
 * A branch moved since `head` was read (a push meanwhile) is a 400: nothing is overwritten.
 */
export async function commitToSnippet(ctx: SiteContext, snippetId: number, actor: Actor, head: SnippetHead, changes: readonly FileChange[], message: string): Promise<string> {
  const repository = snippetRepositoryOf(ctx, snippetId);
  if (!(await hasRepository(repository))) await createSnippetRepository(ctx.config.dataDir, snippetId);
  const scratchRoot = tmpDir(ctx.config.dataDir);
  await mkdir(scratchRoot, { recursive: true });
  const { user } = actor;
  const sha = await commitTreeChanges(repository, { branch: head.branch, parent: head.commit, expected: head.commit, changes, message, author: { name: user.name, email: user.email }, scratchRoot });
  if (!sha) throw badRequest(`Error updating the snippet - branch '${head.branch}' was changed by a push while this change was made; please retry`);
  return sha;
}
