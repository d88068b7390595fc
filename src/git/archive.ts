import type { GitStream } from './cli.js';
import { gitStream } from './in-repository.js';

/** The archive kinds git writes: tar and zip natively, tar.gz with its own gzip, tar.bz2 through bzip2. */
export type ArchiveFormat = 'tar.gz' | 'tar.bz2' | 'tar' | 'zip';

export interface ArchiveRequest {
  readonly commit: string;
  /** The one top-level directory every file is under (GitLab's ArchivePrefix). */
  readonly prefix: string;
  readonly format: ArchiveFormat;
  /** Only this path of the tree, kept at its place under the prefix; the whole tree when absent. */
  readonly path?: string;
}

/**
 * The archive as `git archive` writes it, streamed: the caller pipes stdout to the client and
 * never holds the whole archive. git has no bzip2 of its own; `tar.tar.bz2.command` makes it pipe
 * its tar through a bzip2 process (a fixed command line: nothing of the request reaches a shell).
 */
export function streamArchive(repository: string, request: ArchiveRequest): GitStream {
  const args = [
    '-c',
    'tar.tar.bz2.command=bzip2 -c',
    'archive',
    `--format=${request.format}`,
    `--prefix=${request.prefix}/`,
    request.commit,
    ...(request.path ? ['--', request.path] : []),
  ];
  const child = gitStream(repository, args);
  child.stdin.end();
  return child;
}
