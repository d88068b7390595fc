import path from 'node:path';
import type { Db } from '../db/connection.js';
import { appendBlobEvent } from './blobs.js';

/** A file blob whose row was inserted (its file already renamed into place) or deleted. */
export interface FileChange {
  readonly type: 'lfs_object' | 'job_artifact' | 'attachment';
  readonly action: 'created' | 'deleted';
  /** The row id: lfs_objects, ci_job_artifacts or uploads. */
  readonly id: number;
  /** Null for an LFS object: one object serves many projects, so no project's deletion may drop it. */
  readonly projectId: number | null;
  /** The file's absolute path on this site. */
  readonly file: string;
  /** The row's sha256 (an LFS object's oid) and size; left out of a delete. */
  readonly sha256?: string;
  readonly size?: number;
}

/**
 * Appends a file's blob event. Call it inside the transaction that inserts or deletes the row,
 * so a rolled-back write leaves no event, and (for a create) after the file is durable.
 */
export function recordFileChange(db: Db, dataDir: string, change: FileChange): void {
  const created = change.action === 'created';
  appendBlobEvent(db, {
    type: change.type,
    action: change.action,
    id: change.id,
    project_id: change.projectId,
    path: path.relative(dataDir, change.file).split(path.sep).join('/'),
    checksum: created ? (change.sha256 ?? null) : null,
    size: created ? (change.size ?? null) : null,
  });
}
