import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { updateProjectRow, type ProjectRow } from '../../db/tables/projects.js';
import { AppError, badRequest } from '../../errors.js';
import { GitError } from '../../git/cli.js';
import { setRepositoryHead } from '../../git/repositories.js';
import type { SiteContext } from '../../site-context.js';
import { tmpDir } from '../../storage/layout.js';
import { afterPush } from './after-push.js';
import type { Actor } from '../users/authentication.js';
import { lastCommitTouching } from '../../git/commit-log.js';
import { git, gitBytes, repositoryOf } from '../../git/in-repository.js';
import { branchCommit, isEmptyRepository, isValidBranchName } from '../../git/refs.js';
import { BLANK_SHA } from '../../git/object-names.js';
import { refChangeRefusal, refPolicyFor } from './ref-policy.js';

/** Stands for the commit about to be made in a permission check: any name that is not blank. */
const NEW_COMMIT = 'f'.repeat(40);

export type FileAction =
  | { readonly action: 'create' | 'update'; readonly filePath: string; readonly content: Buffer; readonly lastCommitId?: string }
  | { readonly action: 'delete'; readonly filePath: string }
  | { readonly action: 'move'; readonly filePath: string; readonly previousPath: string; readonly content?: Buffer }
  | { readonly action: 'chmod'; readonly filePath: string; readonly executable: boolean };

export interface CommitRequest {
  readonly branch: string;
  readonly startBranch?: string;
  readonly message: string;
  readonly actions: readonly FileAction[];
  readonly authorName?: string;
  readonly authorEmail?: string;
}

/** A path a commit may write: relative, no `.`/`..`/`.git` component, no empty component or control character. */
export function isValidFilePath(filePath: string): boolean {
  if (!filePath || filePath.length > 4096 || /[\x00-\x1f\x7f]/.test(filePath) || filePath.startsWith('/') || filePath.endsWith('/')) return false;
  return filePath.split('/').every((part) => part !== '' && part !== '.' && part !== '..' && part.toLowerCase() !== '.git');
}

/**
 * Makes one commit on `branch` from file actions without a work tree (GitLab's Files and Commits
 * services): a temporary index seeded from the parent, blobs written with hash-object, the tree
 * and commit with write-tree and commit-tree as the acting user, and the branch moved with
 * update-ref against its old value, so a push that landed meanwhile makes this fail (400) instead
 * of being overwritten. The first commit of an empty repository makes its branch HEAD and the
 * project's default branch. Push hooks fire as for a push. Resolves to the new commit's sha.
 */
export async function writeCommit(ctx: SiteContext, project: ProjectRow, actor: Actor, request: CommitRequest): Promise<string> {
  const repository = repositoryOf(ctx, project);
  const { branch } = request;
  if (!(await isValidBranchName(branch))) throw badRequest('Branch name is invalid');
  const empty = await isEmptyRepository(repository);
  const current = await branchCommit(repository, branch);
  let parent: string | null = current;
  if (request.startBranch !== undefined && request.startBranch !== branch) {
    if (current) throw badRequest(`A branch called '${branch}' already exists. Switch to that branch in order to make changes`);
    if (!empty) {
      parent = await branchCommit(repository, request.startBranch);
      if (!parent) throw badRequest(`Cannot find start_branch '${request.startBranch}'`);
    }
  } else if (!current && !empty) {
    throw badRequest('You can only create or edit files when you are on a branch');
  }

  // GitLab's Commits::CreateService#validate_permissions!: a protected branch takes commits from those who may push to it.
  const change = { ref: `refs/heads/${branch}`, before: current ?? BLANK_SHA, after: NEW_COMMIT, forced: false };
  if (refChangeRefusal(refPolicyFor(ctx.db, actor, project), change, 'web')) throw badRequest('You are not allowed to push into this branch');

  const tmpRoot = tmpDir(ctx.config.dataDir);
  await mkdir(tmpRoot, { recursive: true });
  const scratch = await mkdtemp(path.join(tmpRoot, 'commit-'));
  const index = { GIT_INDEX_FILE: path.join(scratch, 'index') };
  try {
    if (parent) await git(repository, ['read-tree', parent], { env: index });
    for (const [i, action] of request.actions.entries()) {
      try {
        await applyAction(repository, index, parent, action);
      } catch (error) {
        // A multi-file commit names the action that failed; a single file keeps GitLab's exact text.
        if (request.actions.length > 1 && error instanceof AppError) throw badRequest(`actions[${i}] ${action.action} ${action.filePath}: ${error.message}`);
        throw error;
      }
    }
    const tree = (await git(repository, ['write-tree'], { env: index })).stdout.trim();
    const { user } = actor;
    const identity = {
      GIT_AUTHOR_NAME: request.authorName || user.name,
      GIT_AUTHOR_EMAIL: request.authorEmail || user.email,
      GIT_COMMITTER_NAME: user.name,
      GIT_COMMITTER_EMAIL: user.email,
    };
    // The message from stdin, exactly as given: `-m` would add a newline GitLab's commits do not have.
    const sha = (await git(repository, ['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-F', '-'], { env: identity, input: request.message })).stdout.trim();
    try {
      await git(repository, ['update-ref', '-m', `geoforge: commit by ${user.username}`, `refs/heads/${branch}`, sha, current ?? BLANK_SHA]);
    } catch (error) {
      if (error instanceof GitError) throw badRequest(`Could not update branch '${branch}': it was changed by another push while this commit was made; please retry`);
      throw error;
    }
    if (empty) {
      await setRepositoryHead(repository, branch);
      if (project.default_branch !== branch) updateProjectRow(ctx.db, project.id, { default_branch: branch });
    }
    await notifyPush(ctx, project, actor, branch, current ?? BLANK_SHA, sha);
    return sha;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Push hooks and activity for a branch the API moved; a failure there never undoes the ref change. */
export function notifyPush(ctx: SiteContext, project: ProjectRow, actor: Actor, branch: string, before: string, after: string): Promise<void> {
  return notifyRefChange(ctx, project, actor, `refs/heads/${branch}`, before, after);
}

/** The same for any ref (a tag: tag push hooks). */
export async function notifyRefChange(ctx: SiteContext, project: ProjectRow, actor: Actor, ref: string, before: string, after: string): Promise<void> {
  try {
    await afterPush(ctx, project, actor, [{ ref, before, after }]);
  } catch (error) {
    ctx.log.error({ err: error, project_id: project.id, ref }, 'after-push work failed for an API ref update');
  }
}

interface IndexEntry {
  readonly mode: string;
  readonly blob: string;
}

/** The index entry at exactly `filePath`, or null. */
async function entryAt(repository: string, index: Record<string, string>, filePath: string): Promise<IndexEntry | null> {
  const { stdout } = await git(repository, ['ls-files', '-s', '-z', '--', filePath], { env: index });
  for (const record of stdout.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0 || record.slice(tab + 1) !== filePath) continue;
    const [mode, blob] = record.slice(0, tab).split(' ');
    return { mode: mode!, blob: blob! };
  }
  return null;
}

const writeBlob = async (repository: string, content: Buffer) => (await gitBytes(repository, ['hash-object', '-w', '--no-filters', '--stdin'], content)).toString('utf8').trim();

async function applyAction(repository: string, index: Record<string, string>, parent: string | null, action: FileAction): Promise<void> {
  const updateIndex = (args: string[]) =>
    git(repository, ['update-index', ...args], { env: index }).catch((error: unknown) => {
      if (error instanceof GitError) throw badRequest(`Could not ${action.action} ${action.filePath}: ${error.stderr.trim().split('\n')[0] ?? 'rejected by git'}`);
      throw error;
    });
  // --force-remove wants a work tree; an --index-info entry of mode 0 removes the path from the index alone.
  const removeFromIndex = (filePath: string) =>
    gitBytes(repository, ['update-index', '-z', '--index-info'], Buffer.from(`0 ${BLANK_SHA}\t${filePath}\0`), { env: index });
  const existing = await entryAt(repository, index, action.filePath);
  switch (action.action) {
    case 'create': {
      if (existing) throw badRequest('A file with this name already exists');
      const blob = await writeBlob(repository, action.content);
      await updateIndex(['--add', '--cacheinfo', '100644', blob, action.filePath]);
      return;
    }
    case 'update': {
      if (!existing) throw badRequest("A file with this name doesn't exist");
      if (action.lastCommitId && parent) {
        const last = await lastCommitTouching(repository, parent, action.filePath);
        if (last && last !== action.lastCommitId) {
          throw badRequest('You are attempting to update a file that has changed since you started editing it.');
        }
      }
      const blob = await writeBlob(repository, action.content);
      await updateIndex(['--cacheinfo', existing.mode, blob, action.filePath]);
      return;
    }
    case 'delete': {
      if (!existing) throw badRequest("A file with this name doesn't exist");
      await removeFromIndex(action.filePath);
      return;
    }
    case 'move': {
      const previous = await entryAt(repository, index, action.previousPath);
      if (!previous) throw badRequest(`A file with the previous path '${action.previousPath}' doesn't exist`);
      if (existing) throw badRequest('A file with this name already exists');
      const blob = action.content ? await writeBlob(repository, action.content) : previous.blob;
      await removeFromIndex(action.previousPath);
      await updateIndex(['--add', '--cacheinfo', previous.mode, blob, action.filePath]);
      return;
    }
    case 'chmod': {
      if (!existing) throw badRequest("A file with this name doesn't exist");
      await updateIndex(['--cacheinfo', action.executable ? '100755' : '100644', existing.blob, action.filePath]);
      return;
    }
  }
}

