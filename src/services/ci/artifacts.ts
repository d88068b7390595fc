import path from 'node:path';
import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { deleteJobArtifact, findJob, findJobArtifact, insertJobArtifact, type JobArtifactRow, type JobRow } from '../../db/tables/ci.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { AppError, notFound } from '../../errors.js';
import { recordFileChange } from '../../geo/file-events.js';
import type { BlobStores } from '../../storage/blob-stores.js';
import { nowIso } from '../../storage/clock.js';
import { artifactFilePath, artifactKey } from '../../storage/layout.js';
import { MAX_UPLOAD_BYTES } from '../../storage/limits.js';
import type { UploadedFile } from '../../storage/uploaded-file.js';
import { sanitizeFilename } from '../projects/uploads.js';

/**
 * POST /projects/:id/jobs/:job_id/artifacts, for a job loaded for an actor allowed push_code: stores the archive in the artifacts
 * store (visible there once complete); the row follows, replacing the job's earlier archive (whose
 * blob goes when its name differs). A row never names a missing or partial blob.
 */
export async function uploadJobArtifact(db: Db, blobs: BlobStores, dataDir: string, project: ProjectRow, job: JobRow, file: UploadedFile): Promise<JobRow> {
  if (file.size > MAX_UPLOAD_BYTES) throw new AppError('payload_too_large');
  const stored = { project_id: project.id, job_id: job.id, filename: sanitizeFilename(file.filename || 'artifacts.zip') };
  const key = artifactKey(stored);
  let previous: JobArtifactRow | undefined;
  const { sha256, size } = await blobs.put(key, file.path);
  try {
    inTransaction(db, () => {
      // The job may have been deleted meanwhile: then no row is written and the blob goes below.
      if (!findJob(db, project.id, job.id)) throw notFound('Job');
      previous = findJobArtifact(db, job.id);
      if (previous) {
        deleteJobArtifact(db, previous.id);
        recordFileChange(db, dataDir, { type: 'job_artifact', action: 'deleted', id: previous.id, projectId: project.id, file: artifactFilePath(dataDir, previous) });
      }
      const artifact = insertJobArtifact(db, { ...stored, file_type: 'archive', size, sha256, created_at: nowIso() });
      recordFileChange(db, dataDir, { type: 'job_artifact', action: 'created', id: artifact.id, projectId: project.id, file: artifactFilePath(dataDir, artifact), sha256, size });
    });
  } catch (error) {
    if (findJobArtifact(db, job.id)?.filename !== stored.filename) await blobs.remove(key);
    throw error;
  }
  if (previous && previous.filename !== stored.filename) await blobs.remove(artifactKey(previous));
  return job;
}

/** GET /projects/:id/jobs/:job_id/artifacts: the job's archive, its row and blob key; 404 when there is none. */
export function findJobArtifactFile(db: Db, job: JobRow): { artifact: JobArtifactRow; key: string } {
  const artifact = findJobArtifact(db, job.id);
  if (!artifact) throw notFound();
  return { artifact, key: artifactKey(artifact) };
}

/** DELETE /projects/:id/jobs/:job_id/artifacts, for a job loaded for an actor allowed push_code: the row, then the blob. */
export async function deleteJobArtifacts(db: Db, blobs: BlobStores, dataDir: string, project: ProjectRow, job: JobRow): Promise<void> {
  const artifact = inTransaction(db, () => {
    const row = findJobArtifact(db, job.id);
    if (!row) throw notFound();
    deleteJobArtifact(db, row.id);
    recordFileChange(db, dataDir, { type: 'job_artifact', action: 'deleted', id: row.id, projectId: project.id, file: artifactFilePath(dataDir, row) });
    return row;
  });
  // The job's whole folder: nothing else of the job lives there.
  await blobs.removeFolder(path.posix.dirname(artifactKey(artifact)));
}
