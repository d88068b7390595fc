import { copyFile, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Db } from '../db/connection.js';
import { findUserById, updateUser, type UserRow } from '../db/tables/users.js';
import { invalid } from '../errors.js';
import { nowIso } from '../storage/clock.js';
import { groupAvatarDir, projectAvatarDir, topicAvatarDir, userAvatarDir } from '../storage/layout.js';
import { MAX_AVATAR_BYTES } from '../storage/limits.js';
import type { UploadedFile } from '../storage/uploaded-file.js';

const FORMATS = ['png', 'jpg', 'jpeg', 'gif', 'bmp', 'tiff', 'ico'];

/** Checks an uploaded avatar as GitLab's uploader does: a known image extension, at most 200 KB. */
export function assertAvatar(file: UploadedFile): void {
  const extension = path.extname(file.filename).slice(1).toLowerCase();
  if (!FORMATS.includes(extension)) {
    throw invalid({ avatar: [`file format is not supported. Please try one of the following supported formats: ${FORMATS.join(', ')}`] });
  }
  if (file.size > MAX_AVATAR_BYTES) throw invalid({ avatar: ['is too big (should be at most 200 KB)'] });
}

/** Replaces the user's avatar file and records its name; returns the updated user. */
export async function attachUserAvatar(db: Db, dataDir: string, userId: number, file: UploadedFile): Promise<UserRow> {
  const dir = userAvatarDir(dataDir, userId);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const name = file.filename.replace(/[^\w.-]/g, '_');
  await copyFile(file.path, path.join(dir, name));
  updateUser(db, userId, { avatar_path: name, updated_at: nowIso() });
  return findUserById(db, userId)!;
}

/** Replaces the project's avatar file and returns the name to record in avatar_path. */
export const storeProjectAvatar = (dataDir: string, projectId: number, file: UploadedFile): Promise<string> => storeAvatar(projectAvatarDir(dataDir, projectId), file);

/** Replaces the group's avatar file and returns the name to record in avatar_path. */
export const storeGroupAvatar = (dataDir: string, groupId: number, file: UploadedFile): Promise<string> => storeAvatar(groupAvatarDir(dataDir, groupId), file);

/** Replaces the topic's avatar file and returns the name to record in avatar_path. */
export const storeTopicAvatar = (dataDir: string, topicId: number, file: UploadedFile): Promise<string> => storeAvatar(topicAvatarDir(dataDir, topicId), file);

/** Removes an avatar's files once its row no longer names them (`avatar=""`). */
export const removeAvatarFiles = (dir: string): Promise<void> => rm(dir, { recursive: true, force: true });

/** Removes the topic's avatar file, if any. */
export const removeTopicAvatar = (dataDir: string, topicId: number): Promise<void> => removeAvatarFiles(topicAvatarDir(dataDir, topicId));

async function storeAvatar(dir: string, file: UploadedFile): Promise<string> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const name = file.filename.replace(/[^\w.-]/g, '_');
  await copyFile(file.path, path.join(dir, name));
  return name;
}
