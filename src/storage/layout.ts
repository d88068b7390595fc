import { createHash } from 'node:crypto';
import path from 'node:path';

/**
 * Where everything a site keeps lives under its data directory (DESIGN: One process per site). A secondary
 * keeps its copies in the same layout, so a blob event's path (relative to the data directory)
 * names the same file on every site: change a path here and the sites disagree.
 */

/** The top-level folder of each kind of blob; a replicated blob's path starts with one of these. */
export const REPOSITORIES_DIR = 'repositories';
export const LFS_OBJECTS_DIR = 'lfs-objects';
export const ARTIFACTS_DIR = 'artifacts';
export const UPLOADS_DIR = 'uploads';

/** The site's SQLite database. */
export const databasePath = (dataDir: string): string => path.join(dataDir, 'geoforge.sqlite');

/** A secondary's snapshot from the primary, downloaded to `part` and renamed to `file` once prepared. */
export const bootstrapSnapshotPaths = (dataDir: string): { part: string; file: string } => ({
  part: path.join(dataDir, 'bootstrap.sqlite.part'),
  file: path.join(dataDir, 'bootstrap.sqlite'),
});

/** The generated password of the first admin, when none was configured. */
export const initialRootPasswordPath = (dataDir: string): string => path.join(dataDir, 'initial_root_password');

/** Scratch files of requests: multipart uploads, commit indexes, database snapshots being sent. */
export const tmpDir = (dataDir: string): string => path.join(dataDir, 'tmp');

/** The git hooks every repository of the site runs (core.hooksPath). */
export const gitHooksDir = (dataDir: string): string => path.join(dataDir, 'git-hooks');

/**
 * GitLab's hashed storage: the directory derives from the project id only, so renames and
 * transfers never move a repository.
 */
function hashedStoragePath(projectId: number): string {
  const hash = createHash('sha256').update(String(projectId)).digest('hex');
  return path.join('@hashed', hash.slice(0, 2), hash.slice(2, 4), hash);
}

/** Where the project's repositories live below DATA_DIR/repositories, without `.git` (GitLab's disk_path). */
export const hashedDiskPath = (projectId: number): string => hashedStoragePath(projectId);

/** The project's bare repository: DATA_DIR/repositories/@hashed/aa/bb/<sha256(id)>.git */
export function repositoryPath(dataDir: string, projectId: number): string {
  return path.join(dataDir, REPOSITORIES_DIR, `${hashedStoragePath(projectId)}.git`);
}

/** The project's wiki repository, beside the main one. */
export function wikiRepositoryPath(dataDir: string, projectId: number): string {
  return path.join(dataDir, REPOSITORIES_DIR, `${hashedStoragePath(projectId)}.wiki.git`);
}

/**
 * A snippet's repository: DATA_DIR/repositories/@snippets/aa/bb/<sha256(id)>.git, as GitLab's
 * hashed storage keeps snippets apart from projects (the id spaces overlap).
 */
export function snippetRepositoryPath(dataDir: string, snippetId: number): string {
  const hash = createHash('sha256').update(String(snippetId)).digest('hex');
  return path.join(dataDir, REPOSITORIES_DIR, '@snippets', hash.slice(0, 2), hash.slice(2, 4), `${hash}.git`);
}

/**
 * A group's wiki repository: DATA_DIR/repositories/@groups/aa/bb/<sha256(id)>.wiki.git, where
 * GitLab's hashed storage keeps group wikis (group ids overlap project ids).
 */
export function groupWikiRepositoryPath(dataDir: string, groupId: number): string {
  const hash = createHash('sha256').update(String(groupId)).digest('hex');
  return path.join(dataDir, REPOSITORIES_DIR, '@groups', hash.slice(0, 2), hash.slice(2, 4), `${hash}.wiki.git`);
}

/** Where a clone is written before it is renamed to repositoryPath: beside it, so the rename stays on one filesystem. */
export function stagingRepositoryPath(dataDir: string, projectId: number): string {
  return `${repositoryPath(dataDir, projectId)}.importing`;
}

/**
 * Blob keys: where an LFS object, upload or job artifact lives relative to the data directory,
 * `/`-separated. The same key names it on the local disk, in an object store and in Geo blob events.
 */
export const lfsObjectKey = (oid: string): string => `${LFS_OBJECTS_DIR}/${oid.slice(0, 2)}/${oid.slice(2, 4)}/${oid}`;
export const projectUploadsKey = (projectId: number): string => `${UPLOADS_DIR}/${projectId}`;
export const uploadKey = (upload: { project_id: number; secret: string; filename: string }): string =>
  `${projectUploadsKey(upload.project_id)}/${upload.secret}/${upload.filename}`;
export const projectArtifactsKey = (projectId: number): string => `${ARTIFACTS_DIR}/${projectId}`;
export const artifactKey = (artifact: { project_id: number; job_id: number; filename: string }): string =>
  `${projectArtifactsKey(artifact.project_id)}/${artifact.job_id}/${artifact.filename}`;

/** Where an LFS object lives on disk: DATA_DIR/lfs-objects/<oid[0:2]>/<oid[2:4]>/<oid>. */
export function lfsObjectPath(dataDir: string, oid: string): string {
  return path.join(dataDir, lfsObjectKey(oid));
}

/** The path of one upload's file on disk: DATA_DIR/uploads/<project_id>/<secret>/<filename>. */
export function uploadFilePath(dataDir: string, upload: { project_id: number; secret: string; filename: string }): string {
  return path.join(dataDir, uploadKey(upload));
}

/** The path of one job artifact's file on disk: DATA_DIR/artifacts/<project_id>/<job_id>/<filename>. */
export function artifactFilePath(dataDir: string, artifact: { project_id: number; job_id: number; filename: string }): string {
  return path.join(dataDir, artifactKey(artifact));
}

/** Where a user's avatar lives (under uploads/, as GitLab's; not replicated as a blob). */
export function userAvatarDir(dataDir: string, userId: number): string {
  return path.join(dataDir, UPLOADS_DIR, '-', 'system', 'user', 'avatar', String(userId));
}

/** Where a project topic's avatar lives (GitLab's uploads/-/system/projects/topic/avatar/:id). */
export function topicAvatarDir(dataDir: string, topicId: number): string {
  return path.join(dataDir, UPLOADS_DIR, '-', 'system', 'projects', 'topic', 'avatar', String(topicId));
}

/** Where a group's avatar lives. */
export function groupAvatarDir(dataDir: string, groupId: number): string {
  return path.join(dataDir, UPLOADS_DIR, '-', 'system', 'group', 'avatar', String(groupId));
}

/** Where a project's avatar lives. */
export function projectAvatarDir(dataDir: string, projectId: number): string {
  return path.join(dataDir, UPLOADS_DIR, '-', 'system', 'project', 'avatar', String(projectId));
}
