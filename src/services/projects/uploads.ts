import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { findProjectByFullPath, type ProjectRow } from '../../db/tables/projects.js';
import { findUpload, insertUpload, type UploadRow } from '../../db/tables/uploads.js';
import { AppError, notFound } from '../../errors.js';
import { recordFileChange } from '../../geo/file-events.js';
import type { Actor } from '../users/authentication.js';
import { nowIso } from '../../storage/clock.js';
import type { BlobStores } from '../../storage/blob-stores.js';
import { uploadFilePath, uploadKey } from '../../storage/layout.js';
import { MAX_UPLOAD_BYTES } from '../../storage/limits.js';
import { uploadMediaType } from '../../storage/media-types.js';
import type { UploadedFile } from '../../storage/uploaded-file.js';
import { can } from '../permissions.js';

/**
 * A file name safe on disk and in a URL: word characters, dot, dash and plus are kept, anything
 * else becomes `_` (as CarrierWave sanitizes); names of dots only and empty names are replaced.
 */
export function sanitizeFilename(name: string): string {
  let clean = path.basename(name.replace(/\\/g, '/')).replace(/[^\w.+-]/g, '_');
  if (/^\.*$/.test(clean)) clean = clean.replace(/\./g, '_') || 'file';
  if (clean.length > 200) {
    const extension = path.extname(clean).slice(0, 20);
    clean = clean.slice(0, 200 - extension.length) + extension;
  }
  return clean;
}

/**
 * Stores a file uploaded to a project by an actor allowed upload_file (SPEC: POST
 * /projects/:id/uploads). The file goes to the uploads store, visible there once complete, then the
 * row is recorded: a row never names a missing or partial file.
 */
export async function uploadToProject(db: Db, blobs: BlobStores, dataDir: string, actor: Actor, project: ProjectRow, file: UploadedFile): Promise<UploadRow> {
  if (file.size > MAX_UPLOAD_BYTES) throw new AppError('payload_too_large');
  const stored = { project_id: project.id, secret: randomBytes(16).toString('hex'), filename: sanitizeFilename(file.filename) };
  const key = uploadKey(stored);
  const { sha256, size } = await blobs.put(key, file.path);
  try {
    const mimetype = uploadMediaType(stored.filename, file.mimetype);
    return inTransaction(db, () => {
      const upload = insertUpload(db, { ...stored, size, sha256, mimetype, uploaded_by_id: actor.user.id, created_at: nowIso() });
      recordFileChange(db, dataDir, { type: 'attachment', action: 'created', id: upload.id, projectId: project.id, file: uploadFilePath(dataDir, upload), sha256, size });
      return upload;
    });
  } catch (error) {
    // The project may have been deleted meanwhile (no row can be written): leave nothing behind.
    await blobs.remove(key);
    throw error;
  }
}

/**
 * The upload a project web path names (`<namespace>/<project>`, secret, filename) with its blob key,
 * when the actor may read the project; 404 otherwise, so a private project is never revealed.
 */
export function findReadableUpload(db: Db, actor: Actor | null, projectPath: string, secret: string, filename: string): { upload: UploadRow; key: string } {
  const project = findProjectByFullPath(db, projectPath);
  if (!project || !can(db, actor, 'read_project', project)) throw notFound();
  const upload = findUpload(db, project.id, secret, filename);
  if (!upload) throw notFound();
  return { upload, key: uploadKey(upload) };
}
