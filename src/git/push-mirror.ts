import { runGit } from './cli.js';

/** How git reaches a mirror: `-c` settings (the pinned address, the protocols) and an environment that carries secrets. */
export interface RemoteAccess {
  /** The URL without credentials: it shows in git's argument list. */
  readonly url: string;
  readonly config: readonly string[];
  /** GIT_CONFIG_* variables (the Authorization header): never in an argument list other processes can read. */
  readonly env: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  readonly timeoutMs: number;
}

/** A ref name and the object it points at (an annotated tag's own object, as ls-remote and for-each-ref both give it). */
export type RefMap = Map<string, string>;

/** How many refspecs one `git push` takes, so a repository with many refs never exceeds the argument limit. */
const PUSH_BATCH = 200;

const gitArgs = (access: RemoteAccess, args: readonly string[]) => [...access.config.flatMap((setting) => ['-c', setting]), ...args];

/** The repository's branches and tags. */
export async function listLocalRefs(repository: string): Promise<RefMap> {
  const { stdout } = await runGit(['--git-dir', repository, 'for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads/', 'refs/tags/']);
  const refs: RefMap = new Map();
  for (const line of stdout.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0) refs.set(line.slice(space + 1), line.slice(0, space));
  }
  return refs;
}

/** The remote's branches and tags (git ls-remote; peeled `^{}` lines left out). */
export async function listRemoteRefs(repository: string, access: RemoteAccess): Promise<RefMap> {
  const { stdout } = await runGit(gitArgs(access, ['--git-dir', repository, 'ls-remote', '--heads', '--tags', '--', access.url]), {
    env: access.env,
    signal: access.signal,
    timeoutMs: access.timeoutMs,
  });
  const refs: RefMap = new Map();
  for (const line of stdout.split('\n')) {
    const [sha, ref] = line.split('\t');
    if (sha && ref && !ref.endsWith('^{}')) refs.set(ref, sha);
  }
  return refs;
}

/** Whether `ancestor` is in `descendant`'s history here; an object this repository lacks is not (the remote has work we do not). */
export async function isAncestor(repository: string, ancestor: string, descendant: string): Promise<boolean> {
  const { exitCode } = await runGit(['--git-dir', repository, 'merge-base', '--is-ancestor', ancestor, descendant], { answerExitCodes: [1, 128] });
  return exitCode === 0;
}

/** Pushes refspecs (`+<sha>:<ref>` to set, `:<ref>` to delete) to the remote, in batches; a refusal rejects with git's GitError. */
export async function pushRefspecs(repository: string, access: RemoteAccess, refspecs: readonly string[]): Promise<void> {
  for (let i = 0; i < refspecs.length; i += PUSH_BATCH) {
    await runGit(gitArgs(access, ['--git-dir', repository, 'push', '--porcelain', '--', access.url, ...refspecs.slice(i, i + PUSH_BATCH)]), {
      env: access.env,
      signal: access.signal,
      timeoutMs: access.timeoutMs,
    });
  }
}
