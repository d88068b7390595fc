import { runInNewContext } from 'node:vm';
import type { Db } from '../../db/connection.js';
import { allProtectedBranchRows } from '../../db/tables/protected-refs.js';
import type { RemoteMirrorRow } from '../../db/tables/remote-mirrors.js';
import { GitError } from '../../git/cli.js';
import { hasRepository } from '../../git/in-repository.js';
import { isAncestor, listLocalRefs, listRemoteRefs, pushRefspecs, type RemoteAccess } from '../../git/push-mirror.js';
import { repositoryPath } from '../../storage/layout.js';
import { LocalNetworkError } from '../local-network.js';
import { maskUrlCredentials, OUTBOUND_GIT_PROTOCOLS, pinnedGitConfig } from '../outbound-git.js';
import { matchesRefPattern } from '../repository/ref-policy.js';

/** One update, ls-remote to the last push, never holds a worker slot forever. */
const GIT_TIMEOUT_MS = 30 * 60_000;

/** What an update did: ok, or the error text (credentials masked) and whether another attempt may help. */
export interface MirrorPushResult {
  readonly ok: boolean;
  readonly error: string | null;
  readonly retryable: boolean;
}

export interface MirrorPushOptions {
  readonly allowLocal: boolean;
  readonly signal?: AbortSignal;
}

/**
 * Brings the mirror's refs to the project's (GitLab's UpdateRemoteMirrorService with Gitaly's
 * UpdateRemoteMirror): every tag, and the branches the mirror's filter keeps (keptBranches);
 * created and changed refs are pushed, refs gone here are deleted there. Without keep_divergent_refs a changed ref is force-pushed; with it, a ref the
 * remote moved elsewhere is left alone and named in the error ("Some refs have diverged ..."), and
 * nothing is deleted. The credentials of the URL travel in an Authorization header through git's
 * environment, never in an argument list, an answer or a log line.
 */
export async function pushToMirror(db: Db, dataDir: string, mirror: RemoteMirrorRow, options: MirrorPushOptions): Promise<MirrorPushResult> {
  const repository = repositoryPath(dataDir, mirror.project_id);
  try {
    if (!(await hasRepository(repository))) return { ok: true, error: null, retryable: false };
    const access = await remoteAccess(mirror.url, options);
    const [allLocal, allRemote] = [await listLocalRefs(repository), await listRemoteRefs(repository, access)];
    const branches = [...new Set([...allLocal.keys(), ...allRemote.keys()])].filter((ref) => ref.startsWith('refs/heads/')).map((ref) => ref.slice('refs/heads/'.length));
    const kept = keptBranches(db, mirror, branches);
    const inScope = (ref: string) => ref.startsWith('refs/tags/') || (ref.startsWith('refs/heads/') && kept.has(ref.slice('refs/heads/'.length)));
    const local = new Map([...allLocal].filter(([ref]) => inScope(ref)));
    const remote = new Map([...allRemote].filter(([ref]) => inScope(ref)));
    const keepDivergent = mirror.keep_divergent_refs === 1;
    const refspecs: string[] = [];
    const diverged: string[] = [];
    for (const [ref, sha] of local) {
      const theirs = remote.get(ref);
      if (theirs === sha) continue;
      if (theirs === undefined || !keepDivergent) refspecs.push(`+${sha}:${ref}`);
      else if (ref.startsWith('refs/heads/') && (await isAncestor(repository, theirs, sha))) refspecs.push(`${sha}:${ref}`);
      else diverged.push(ref);
    }
    if (!keepDivergent) for (const ref of remote.keys()) if (!local.has(ref)) refspecs.push(`:${ref}`);
    if (refspecs.length) await pushRefspecs(repository, access, refspecs);
    if (diverged.length) return { ok: false, error: `Some refs have diverged and have not been updated on the remote:\n\n${diverged.join('\n')}`, retryable: false };
    return { ok: true, error: null, retryable: false };
  } catch (error) {
    if (options.signal?.aborted) throw error;
    // A refused local address stays refused, as for webhooks, and a regex that ran too long would again: no retry.
    const refused = error instanceof LocalNetworkError || (error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT';
    const text = error instanceof GitError ? error.stderr.trim() || error.message : error instanceof Error ? error.message : String(error);
    return { ok: false, error: maskUrlCredentials(text), retryable: !refused };
  }
}

/** git's way to the mirror: the URL without its credentials, the pinned address, and the credentials as a Basic header in the environment. */
async function remoteAccess(raw: string, options: MirrorPushOptions): Promise<RemoteAccess> {
  const url = new URL(raw);
  const env: Record<string, string> = {};
  if (url.username || url.password) {
    const basic = Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64');
    Object.assign(env, { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraHeader', GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}` });
    url.username = '';
    url.password = '';
  }
  const pinned = await pinnedGitConfig(url.toString(), options.allowLocal);
  return { url: url.toString(), config: [...OUTBOUND_GIT_PROTOCOLS, ...pinned], env, signal: options.signal, timeoutMs: GIT_TIMEOUT_MS };
}

/** How long mirror_branch_regex may take over all branch names of one update. */
const REGEX_TIMEOUT_MS = 1000;

/**
 * The branches the mirror keeps: protected ones (any protection's name or wildcard), those
 * matching its regex, or all. The regex is a maintainer's and JavaScript's engine backtracks
 * (GitLab uses RE2): it runs in a vm context with a timeout, so a catastrophic pattern fails the
 * update instead of blocking the site.
 */
function keptBranches(db: Db, mirror: RemoteMirrorRow, branches: readonly string[]): Set<string> {
  if (mirror.only_protected_branches) {
    const patterns = allProtectedBranchRows(db, mirror.project_id).map((row) => row.name);
    return new Set(branches.filter((branch) => patterns.some((pattern) => matchesRefPattern(pattern, branch))));
  }
  if (!mirror.mirror_branch_regex) return new Set(branches);
  const matching = runInNewContext('names.filter((name) => new RegExp(pattern, "u").test(name))', { names: [...branches], pattern: mirror.mirror_branch_regex }, { timeout: REGEX_TIMEOUT_MS }) as string[];
  return new Set(matching);
}
