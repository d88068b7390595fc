import type { UploadedFile } from '../../storage/uploaded-file.js';
import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { findProjectById, updateProjectRow, type ProjectRow } from '../../db/tables/projects.js';
import { notFound } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';
import { removeAvatarFiles, storeProjectAvatar } from '../avatars.js';
import { projectAvatarDir } from '../../storage/layout.js';

/** Stores an uploaded avatar for the project (already checked by assertAvatar) and records it. */
export async function setProjectAvatar(db: Db, dataDir: string, projectId: number, file: UploadedFile): Promise<ProjectRow> {
  const name = await storeProjectAvatar(dataDir, projectId, file);
  inTransaction(db, () => updateProjectRow(db, projectId, { avatar_path: name, updated_at: nowIso() }));
  const project = findProjectById(db, projectId);
  if (!project) throw notFound('Project');
  return project;
}

/** Removes the project's avatar (`avatar=""`): the row first, then the files it no longer names. */
export async function clearProjectAvatar(db: Db, dataDir: string, projectId: number): Promise<ProjectRow> {
  inTransaction(db, () => updateProjectRow(db, projectId, { avatar_path: null, updated_at: nowIso() }));
  await removeAvatarFiles(projectAvatarDir(dataDir, projectId));
  const project = findProjectById(db, projectId);
  if (!project) throw notFound('Project');
  return project;
}
