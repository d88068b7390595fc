import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { deleteJobArtifact, findJob, findJobArtifact, insertJobArtifact, type JobArtifactRow, type JobRow } from '../../db/tables/ci.js';
import type { ProjectRow } from '../../db/tables/projects.js';
import { AppError, notFound } from '../../errors.js';
import { recordFileChange } from '../../geo/file-events.js';
import { nowIso } from '../../storage/clock.js';
import { copyWithDigest } from '../../storage/durable-copy.js';
import { artifactFilePath, projectArtifactsDir } from '../../storage/layout.js';
import { MAX_UPLOAD_BYTES } from '../../storage/limits.js';
import type { UploadedFile } from '../../storage/uploaded-file.js';
import { sanitizeFilename } from '../projects/uploads.js';

/**
 * POST /projects/:id/jobs/:job_id/artifacts, for a job loaded for an actor allowed push_code: stores the archive streamed under a
 * temporary name, flushed, then renamed; the row follows, replacing the job's earlier archive
 * (whose file goes when its name differs). A row never names a missing or partial file.
 */
export async function uploadJobArtifact(db: Db, dataDir: string, project: ProjectRow, job: JobRow, file: UploadedFile): Promise<JobRow> {
  if (file.size > MAX_UPLOAD_BYTES) throw new AppError('payload_too_large');
  const filename = sanitizeFilename(file.filename || 'artifacts.zip');
  const dir = path.join(projectArtifactsDir(dataDir, project.id), String(job.id));
  const target = path.join(dir, filename);
  const temporary = path.join(dir, `.tmp-${randomUUID()}`);
  await mkdir(dir, { recursive: true });
  let previous: JobArtifactRow | undefined;
  try {
    const { sha256, size } = await copyWithDigest(file.path, temporary);
    await rename(temporary, target);
    inTransaction(db, () => {
      // The job may have been deleted meanwhile: then no row is written and the file goes below.
      if (!findJob(db, project.id, job.id)) throw notFound('Job');
      previous = findJobArtifact(db, job.id);
      if (previous) {
        deleteJobArtifact(db, previous.id);
        recordFileChange(db, dataDir, { type: 'job_artifact', action: 'deleted', id: previous.id, projectId: project.id, file: artifactFilePath(dataDir, previous) });
      }
      const artifact = insertJobArtifact(db, { project_id: project.id, job_id: job.id, file_type: 'archive', filename, size, sha256, created_at: nowIso() });
      recordFileChange(db, dataDir, { type: 'job_artifact', action: 'created', id: artifact.id, projectId: project.id, file: target, sha256, size });
    });
  } catch (error) {
    await rm(temporary, { force: true });
    if (!findJobArtifact(db, job.id)) await rm(dir, { recursive: true, force: true });
    throw error;
  }
  if (previous && previous.filename !== filename) await rm(artifactFilePath(dataDir, previous), { force: true });
  return job;
}

/** GET /projects/:id/jobs/:job_id/artifacts: the job's archive, its row and file; 404 when there is none. */
export function findJobArtifactFile(db: Db, dataDir: string, job: JobRow): { artifact: JobArtifactRow; file: string } {
  const artifact = findJobArtifact(db, job.id);
  if (!artifact) throw notFound();
  return { artifact, file: artifactFilePath(dataDir, artifact) };
}

/** DELETE /projects/:id/jobs/:job_id/artifacts, for a job loaded for an actor allowed push_code: the row, then the file. */
export async function deleteJobArtifacts(db: Db, dataDir: string, project: ProjectRow, job: JobRow): Promise<void> {
  const artifact = inTransaction(db, () => {
    const row = findJobArtifact(db, job.id);
    if (!row) throw notFound();
    deleteJobArtifact(db, row.id);
    recordFileChange(db, dataDir, { type: 'job_artifact', action: 'deleted', id: row.id, projectId: project.id, file: artifactFilePath(dataDir, row) });
    return row;
  });
  await rm(path.dirname(artifactFilePath(dataDir, artifact)), { recursive: true, force: true });
}
