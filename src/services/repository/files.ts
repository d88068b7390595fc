import { createHash } from 'node:crypto';
import path from 'node:path';
import { notFound } from '../../errors.js';
import { git, gitBytes, resolveCommit } from './git.js';

export interface RepoFile {
  readonly fileName: string;
  readonly filePath: string;
  readonly ref: string;
  readonly blobId: string;
  readonly commitId: string;
  readonly lastCommitId: string;
  readonly content: Buffer;
}

/** The file at `filePath` on `ref`: 404 `Commit` for an unknown ref, 404 `File` for a missing path or a directory. */
export async function readFile(repository: string, ref: string, filePath: string): Promise<RepoFile> {
  const commit = await resolveCommit(repository, ref);
  if (!commit) throw notFound('Commit');
  const { stdout } = await git(repository, ['ls-tree', '-z', '--full-tree', commit, '--', filePath]);
  let blobId: string | null = null;
  for (const record of stdout.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab < 0 || record.slice(tab + 1) !== filePath) continue;
    const [, type, sha] = record.slice(0, tab).split(' ');
    if (type === 'blob') blobId = sha!;
  }
  if (!blobId) throw notFound('File');
  const [content, last] = await Promise.all([
    gitBytes(repository, ['cat-file', 'blob', blobId]),
    git(repository, ['log', '-1', '--format=%H', commit, '--', filePath]),
  ]);
  return { fileName: path.posix.basename(filePath), filePath, ref, blobId, commitId: commit, lastCommitId: last.stdout.trim() || commit, content };
}

export function fileEntity(file: RepoFile) {
  return {
    file_name: file.fileName,
    file_path: file.filePath,
    size: file.content.length,
    encoding: 'base64',
    content: file.content.toString('base64'),
    content_sha256: createHash('sha256').update(file.content).digest('hex'),
    ref: file.ref,
    blob_id: file.blobId,
    commit_id: file.commitId,
    last_commit_id: file.lastCommitId,
  };
}
