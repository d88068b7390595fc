import { createHash } from 'node:crypto';
import path from 'node:path';
import { notFound } from '../../errors.js';
import { blameFile } from '../../git/blame.js';
import { lastCommitTouching, readCommits, type CommitRecord } from '../../git/commit-log.js';
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

/** The file's metadata without its content: the JSON view and the X-Gitlab-* headers share it (GitLab's blob_data). */
function fileMetadata(file: RepoFile) {
  return {
    file_name: file.fileName,
    file_path: file.filePath,
    size: file.content.length,
    encoding: 'base64',
    content_sha256: createHash('sha256').update(file.content).digest('hex'),
    ref: file.ref,
    blob_id: file.blobId,
    commit_id: file.commitId,
    last_commit_id: file.lastCommitId,
  };
}

/**
 * The metadata as GitLab's set_http_headers writes it on every files route (HEAD included, which
 * python-gitlab's files.head reads): `X-Gitlab-File-Name`, `X-Gitlab-Content-Sha256`, ... Values
 * are sent as their UTF-8 bytes, as Rack sends them (node refuses characters above U+00FF).
 */
export function fileHeaders(file: RepoFile): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(fileMetadata(file))) {
    const name = `X-Gitlab-${key
      .split('_')
      .map((word) => word[0]!.toUpperCase() + word.slice(1))
      .join('-')}`;
    headers[name] = Buffer.from(String(value), 'utf8').toString('latin1');
  }
  return headers;
}

/** A run of lines of a file and the commit that last changed them (GitLab's BlameRange). */
export interface BlameRange {
  readonly commit: CommitRecord;
  readonly lines: string[];
}

/** The file at `filePath` on `ref` (404 `Commit`, 404 `File` as readFile) and its blame, first line first. */
export async function blameRepoFile(repository: string, ref: string, filePath: string): Promise<{ file: RepoFile; ranges: BlameRange[] }> {
  const file = await readFile(repository, ref, filePath);
  const groups = await blameFile(repository, file.commitId, filePath);
  const commits = new Map((await readCommits(repository, groups.map((group) => group.commitId))).map((commit) => [commit.id, commit]));
  return { file, ranges: groups.map((group) => ({ commit: commits.get(group.commitId)!, lines: group.lines })) };
}

export function fileEntity(file: RepoFile) {
  const { content_sha256: sha256, ...metadata } = fileMetadata(file);
  // GitLab's key order: content between encoding and content_sha256.
  const { file_name, file_path, size, encoding, ...rest } = metadata;
  return { file_name, file_path, size, encoding, content: file.content.toString('base64'), content_sha256: sha256, ...rest };
}
