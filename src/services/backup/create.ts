import Database from 'better-sqlite3';
import { copyFile, lstat, mkdir, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../../config.js';
import { openDatabaseReadOnly } from '../../db/connection.js';
import { createBundle, headRef } from '../../git/bundles.js';
import {
  ARTIFACTS_DIR,
  databasePath,
  hashedDiskPath,
  initialRootPasswordPath,
  LFS_OBJECTS_DIR,
  repositoryPath,
  UPLOADS_DIR,
  wikiRepositoryPath,
} from '../../storage/layout.js';
import { BLOB_KIND_DIRS } from '../../storage/blob-store.js';
import { BlobStores } from '../../storage/blob-stores.js';
import { hashFile, writeManifest, type BackupEntry, type BackupFile, type BackupManifest, type BackupRepository, type StoredKind } from './manifest.js';

const DATABASE_FILE = 'geoforge.sqlite';
const REPOSITORIES = 'repositories';
const FILES = 'files';

export interface BackupProgress {
  (line: string): void;
}

/**
 * A consistent backup of a site, running or not, taken from another process (the CLI) without
 * stopping writes:
 * 1. the database, through SQLite's online backup API from a read-only connection of the site's
 *    file (WAL: the site keeps writing; the copy is one consistent state, the database point);
 * 2. then every repository and wiki the copied database names, as a git bundle of all its refs:
 *    taken after the database point, so every ref and object the database knows is in it (a push
 *    landing meanwhile adds refs the database does not know yet, which is harmless);
 * 3. then LFS objects, uploads (attachments and avatars) and job artifacts, which are written once
 *    under their final name (temporary name, then rename), so a copy never sees half a file;
 * 4. last, the manifest with every file's size and sha256: a directory without one is unfinished.
 */
export async function createBackup(config: Config, output: string, options: { version: string; progress?: BackupProgress }): Promise<BackupManifest> {
  const say = options.progress ?? (() => undefined);
  const existing = await readdir(output).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  if (existing.length) throw new Error(`${output} is not empty: a backup goes to a new directory`);
  await mkdir(output, { recursive: true });

  const databaseCopy = path.join(output, DATABASE_FILE);
  const source = openDatabaseReadOnly(databasePath(config.dataDir));
  try {
    // Every page in one step, so in one read transaction: copied 100 pages at a time, each write
    // of the site between two steps would restart the copy, and a busy site could keep it from ending.
    await source.backup(databaseCopy, { progress: () => 0x7fffffff });
  } finally {
    source.close();
  }
  // A self-contained file: rollback journal, so the copy needs no -wal or -shm beside it.
  const copy = new Database(databaseCopy);
  let lastEventId: number;
  let projectIds: number[];
  try {
    copy.pragma('journal_mode = DELETE');
    lastEventId = (copy.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'geo_event_log'").pluck().get() as number | undefined) ?? 0;
    projectIds = copy.prepare('SELECT id FROM projects ORDER BY id').pluck().all() as number[];
  } finally {
    copy.close();
  }
  say(`database copied at event ${lastEventId} (${projectIds.length} projects)`);

  const repositories: BackupRepository[] = [];
  const missing: string[] = [];
  for (const projectId of projectIds) {
    for (const wiki of [false, true]) {
      const repository = wiki ? wikiRepositoryPath(config.dataDir, projectId) : repositoryPath(config.dataDir, projectId);
      const diskPath = path.relative(config.dataDir, repository);
      if (!(await lstat(repository).catch(() => null))?.isDirectory()) {
        // A wiki exists only once written; a project repository missing was deleted after the database point.
        if (!wiki) missing.push(diskPath);
        continue;
      }
      const bundle = path.join(REPOSITORIES, `${hashedDiskPath(projectId)}${wiki ? '.wiki' : ''}.bundle`);
      await mkdir(path.dirname(path.join(output, bundle)), { recursive: true });
      const head = await headRef(repository);
      const refs = await createBundle(repository, path.join(output, bundle)).catch(async (error: unknown) => {
        // Deleted while git read it (the project went after the database point): left out like one already gone.
        if (!(await lstat(repository).catch(() => null))) return 'gone' as const;
        throw new Error(`bundle ${diskPath}`, { cause: error });
      });
      if (refs === 'gone') {
        await rm(path.join(output, bundle), { force: true });
        missing.push(diskPath);
        continue;
      }
      repositories.push({ project_id: projectId, wiki, disk_path: diskPath, bundle: refs ? bundle : null, head, refs: refs ?? {} });
    }
  }
  say(`${repositories.length} repositories and wikis bundled${missing.length ? `, ${missing.length} gone from disk` : ''}`);

  const files: BackupFile[] = [];
  for (const top of [LFS_OBJECTS_DIR, UPLOADS_DIR, ARTIFACTS_DIR]) {
    for (const relative of await filesUnder(config.dataDir, top)) {
      // LFS uploads in flight live in lfs-objects/tmp until renamed into place.
      if (top === LFS_OBJECTS_DIR && relative.startsWith(path.join(LFS_OBJECTS_DIR, 'tmp') + path.sep)) continue;
      const target = path.join(FILES, relative);
      await mkdir(path.dirname(path.join(output, target)), { recursive: true });
      const copied = await copyFile(path.join(config.dataDir, relative), path.join(output, target)).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          // Removed since the directory was listed (its row was deleted after the database point).
          if (error.code === 'ENOENT') return false;
          throw error;
        },
      );
      if (!copied) continue;
      files.push({ path: target, restore_to: relative });
    }
  }
  const rootPassword = initialRootPasswordPath(config.dataDir);
  if (await lstat(rootPassword).catch(() => null)) {
    const target = path.join(FILES, path.basename(rootPassword));
    await mkdir(path.join(output, FILES), { recursive: true });
    await copyFile(rootPassword, path.join(output, target));
    files.push({ path: target, restore_to: path.basename(rootPassword) });
  }
  say(`${files.length} files copied`);

  const entries: BackupEntry[] = [];
  for (const file of [DATABASE_FILE, ...repositories.flatMap((repo) => (repo.bundle ? [repo.bundle] : [])), ...files.map((file) => file.path)]) {
    entries.push({ path: file, ...(await hashFile(path.join(output, file))) });
  }
  const objectStored = await listStoredBlobs(config);
  if (objectStored.length) say(`${objectStored.reduce((sum, kind) => sum + kind.blobs.length, 0)} blobs in object stores recorded (${objectStored.map((kind) => kind.kind).join(', ')}), not copied`);
  const manifest: BackupManifest = {
    format: 1,
    created_at: new Date().toISOString(),
    version: options.version,
    source: { role: config.role, node_name: config.nodeName ?? null, data_dir: config.dataDir },
    database: { path: DATABASE_FILE, last_event_id: lastEventId },
    repositories,
    files,
    entries,
    missing,
    ...(objectStored.length ? { object_stored: objectStored } : {}),
  };
  await writeManifest(output, manifest);
  say(`manifest written: ${entries.length} files, ${entries.reduce((sum, entry) => sum + entry.size, 0)} bytes`);
  return manifest;
}

/** Each object-stored kind's blobs as its store lists them now (those still on the disk during a migration are copied above). */
async function listStoredBlobs(config: Config): Promise<StoredKind[]> {
  const blobs = await BlobStores.open(config.dataDir, config.objectStores, { failed: () => undefined, answered: () => undefined });
  try {
    const kinds: StoredKind[] = [];
    for (const kind of blobs.objectKinds()) {
      const store = config.objectStores[kind]!;
      const listed: { key: string; size: number }[] = [];
      for await (const blob of blobs.of(kind).store.list(BLOB_KIND_DIRS[kind])) listed.push(blob);
      kinds.push({ kind, endpoint: store.endpoint, bucket: store.bucket, prefix: store.prefix, blobs: listed });
    }
    return kinds;
  } finally {
    blobs.close();
  }
}

/** Regular files below DATA_DIR/top, as paths relative to the data directory; none when top is missing. */
async function filesUnder(dataDir: string, top: string): Promise<string[]> {
  const root = path.join(dataDir, top);
  const found = await readdir(root, { recursive: true, withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  return found
    // `.tmp-` names are blob writes under way (storage/local-store.ts), not blobs.
    .filter((entry) => entry.isFile() && !entry.name.startsWith('.tmp-'))
    .map((entry) => path.relative(dataDir, path.join(entry.parentPath, entry.name)))
    .sort();
}
