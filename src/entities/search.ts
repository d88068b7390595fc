import type { BlobMatch } from '../git/search.js';

/** One file found by a blob search, with the ref searched (GitLab's Gitlab::Search::FoundBlob). */
export interface FoundBlob extends BlobMatch {
  readonly ref: string;
  readonly projectId: number;
}

/** A file found by a blob or wiki search (GitLab's Entities::Blob): `basename` is the path without its extension; `id` is null, as basic search answers. */
export function foundBlobView(blob: FoundBlob) {
  const slash = blob.path.lastIndexOf('/');
  const dot = blob.path.lastIndexOf('.');
  return {
    basename: dot > slash + 1 ? blob.path.slice(0, dot) : blob.path,
    data: blob.data,
    path: blob.path,
    filename: blob.path,
    id: null,
    ref: blob.ref,
    startline: blob.startline,
    project_id: blob.projectId,
  };
}
