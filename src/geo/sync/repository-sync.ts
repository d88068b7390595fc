import { mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { GitError, runGit } from '../../git/cli.js';
import { isGitBlobType } from '../blobs.js';
import { primaryRefsChecksum, type GitItemType } from '../git-items.js';
import type { RegistryItem } from '../registry/queue.js';
import { readHeadTarget, refsChecksum } from '../repository-checksum.js';
import type { SyncDeps } from './deps.js';
import { SyncFailure } from './failure.js';
import { localCopyPath, repositoryStagingPath } from './local-copy.js';

const GIT_TIMEOUT_MS = 30 * 60_000;

/**
 * Brings the bare mirror of a repository, wiki or snippet repository up to the primary's: `git fetch --prune` of every
 * ref into the existing copy, or a `git clone --mirror` into a staging directory renamed into place
 * when complete (the final path never holds half a repository). Then the copy's refs checksum must
 * equal the primary's; resolves with it.
 */
export async function syncRepository(item: RegistryItem, deps: SyncDeps): Promise<string> {
  if (!isGitBlobType(item.item_type)) throw new Error(`${item.item_type} ${item.item_id} is no git repository`);
  const type: GitItemType = item.item_type;
  const local = localCopyPath(deps.dataDir, item);
  const git = (args: string[]) => {
    const remote = deps.client.gitRemote(type, item.item_id);
    return runGit(args.map((arg) => (arg === REMOTE ? remote.url : arg)), { env: remote.env, signal: deps.signal, timeoutMs: GIT_TIMEOUT_MS }).catch((error: unknown) => {
      throw asSyncFailure(error, type);
    });
  };
  // A directory without HEAD is no repository (a delete cut short): cloned afresh, like a missing one.
  if (await stat(path.join(local, 'HEAD')).catch(() => null)) {
    await git(['--git-dir', local, 'fetch', '--prune', '--quiet', '--no-write-fetch-head', REMOTE, '+refs/*:refs/*']);
  } else {
    await cloneMirror(local, git);
  }
  let checksum = await refsChecksum(local);
  // The replicated row's checksum (as fresh as the applied events), else the newest event's.
  const expected = primaryRefsChecksum(deps.db(), type, item.item_id) ?? item.expected_checksum;
  if (checksum !== null && (expected === null || checksum !== expected)) {
    // Refs are fetched but HEAD never is, and an empty repository advertises no branch at all
    // (issue 17, item 8): the clone's HEAD is this site's default, the primary's may differ.
    const head = await deps.client.repositoryHead(type, item.item_id, deps.signal).catch((error: unknown) => {
      throw new Error(`read the primary's HEAD of ${item.path}`, { cause: error });
    });
    if (head !== (await readHeadTarget(local))) await setHeadTarget(local, head);
    checksum = await refsChecksum(local);
  }
  if (checksum === null) throw new Error(`the local copy at ${item.path} vanished during the sync`);
  if (expected !== null && checksum !== expected) {
    throw new SyncFailure('checksum_mismatch', `refs checksum of the local copy (${checksum}) differs from the primary's (${expected}) after fetching`);
  }
  return checksum;
}

/** Points HEAD where the primary's points: at a ref (a branch, born or not), or detached at a commit. */
async function setHeadTarget(local: string, target: string): Promise<void> {
  const args = target.startsWith('refs/') ? ['symbolic-ref', 'HEAD', target] : ['update-ref', '--no-deref', 'HEAD', target];
  await runGit(['--git-dir', local, ...args]);
}

/** Stands for the remote URL in an argument list: the URL is only built, with a fresh token, when git runs. */
const REMOTE = '\0remote';

async function cloneMirror(local: string, git: (args: string[]) => Promise<unknown>): Promise<void> {
  const staging = repositoryStagingPath(local);
  await mkdir(path.dirname(local), { recursive: true });
  await rm(staging, { recursive: true, force: true });
  try {
    // The origin it records holds no credential (the token travels in the environment); later fetches name the URL anyway.
    await git(['clone', '--mirror', '--quiet', REMOTE, staging]);
    await rm(local, { recursive: true, force: true });
    await rename(staging, local);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

/** git's answer to the primary's 404 is "repository '<url>' not found": the primary does not have it (decision 16). */
function asSyncFailure(error: unknown, type: GitItemType): unknown {
  if (error instanceof GitError && /repository '[^']*' not found/.test(error.stderr)) {
    return new SyncFailure('sync', `the ${type.replace('_', ' ')} is missing on the primary (it answered 404): ${error.stderr.trim()}`, true, { cause: error });
  }
  return error;
}
