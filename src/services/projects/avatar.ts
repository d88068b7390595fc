import type { UploadedFile } from '../../storage/uploaded-file.js';
import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { findProjectById, updateProjectRow, type ProjectRow } from '../../db/tables/projects.js';
import { notFound } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';
import { storeProjectAvatar } from '../avatars.js';

/** Stores an uploaded avatar for the project (already checked by assertAvatar) and records it. */
export async function setProjectAvatar(db: Db, dataDir: string, projectId: number, file: UploadedFile): Promise<ProjectRow> {
  const name = await storeProjectAvatar(dataDir, projectId, file);
  inTransaction(db, () => updateProjectRow(db, projectId, { avatar_path: name, updated_at: nowIso() }));
  const project = findProjectById(db, projectId);
  if (!project) throw notFound('Project');
  return project;
}
