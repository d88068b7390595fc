import { createHash } from 'node:crypto';
import path from 'node:path';
import { notFound } from '../../errors.js';
import { lastCommitTouching } from '../../git/commit-log.js';
import { resolveCommit } from '../../git/refs.js';
import { blobAt, readBlob } from '../../git/tree.js';

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
  const blobId = await blobAt(repository, commit, filePath);
  if (!blobId) throw notFound('File');
  const [content, lastCommitId] = await Promise.all([readBlob(repository, blobId), lastCommitTouching(repository, commit, filePath)]);
  return { fileName: path.posix.basename(filePath), filePath, ref, blobId, commitId: commit, lastCommitId: lastCommitId ?? commit, content };
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
