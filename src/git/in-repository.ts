import { stat } from 'node:fs/promises';
import { runGit, streamGit, type GitOptions, type GitStream } from './cli.js';
import { repositoryPath } from '../storage/layout.js';

/** Reads answer in well under this; a hung git must not hold a request. */
const READ_TIMEOUT_MS = 30_000;
/** Pathspecs are file names, never globs: a path like `*.md` names that one file. */
const LITERAL = { GIT_LITERAL_PATHSPECS: '1' };

/** The project's repository on this site; takes any context that knows the data directory, so git never sees the site. */
export const repositoryOf = (site: { readonly config: { readonly dataDir: string } }, project: { readonly id: number }): string =>
  repositoryPath(site.config.dataDir, project.id);

/** `git --git-dir <repository> <args>` with quoting of unusual paths off, literal pathspecs and the read timeout. */
export function git(repository: string, args: readonly string[], options: GitOptions = {}) {
  return runGit(['-c', 'core.quotePath=false', '--git-dir', repository, ...args], {
    timeoutMs: READ_TIMEOUT_MS,
    ...options,
    env: { ...LITERAL, ...options.env },
  });
}

/** The same, streaming: stdout is the caller's to pipe (a raw blob, an archive), never held here. */
export function gitStream(repository: string, args: readonly string[], options: GitOptions = {}): GitStream {
  return streamGit(['-c', 'core.quotePath=false', '--git-dir', repository, ...args], { ...options, env: { ...LITERAL, ...options.env } });
}

/** The same, for output that must stay bytes (blobs), with optional stdin. */
export async function gitBytes(repository: string, args: readonly string[], input?: Buffer, options: GitOptions = {}): Promise<Buffer> {
  const child = streamGit(['-c', 'core.quotePath=false', '--git-dir', repository, ...args], {
    timeoutMs: READ_TIMEOUT_MS,
    ...options,
    env: { ...LITERAL, ...options.env },
  });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stdin.end(input ?? Buffer.alloc(0));
  await child.done;
  return Buffer.concat(chunks);
}

/**
 * Whether the repository is on disk. A missing one (a secondary still syncing, a project whose
 * import failed) holds no commit and no branch: the reads answer that instead of failing.
 */
export async function hasRepository(repository: string): Promise<boolean> {
  try {
    return (await stat(repository)).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw new Error(`check repository ${repository}`, { cause: error });
  }
}
