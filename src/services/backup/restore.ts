import { copyFile, mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { restoreBundle } from '../../git/bundles.js';
import { databasePath } from '../../storage/layout.js';
import { inside, type BackupManifest } from './manifest.js';
import { verifyBackup } from './verify.js';

/**
 * Restores a backup into a new data directory (missing or empty): verified first, then the
 * database, every repository and wiki from its bundle (refs and HEAD as backed up) and every file
 * to its place. A site started on the directory (`geoforge serve` with dataDir NEW) is the source
 * as of the database point; as a primary it can take new secondaries (they bootstrap from it).
 */
export async function restoreBackup(dir: string, dataDir: string, progress: (line: string) => void = () => undefined): Promise<BackupManifest> {
  const existing = await readdir(dataDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  if (existing.length) throw new Error(`${dataDir} is not empty: restore into a new data directory`);
  const { manifest, problems } = await verifyBackup(dir);
  if (problems.length) throw new Error(`the backup is damaged, nothing restored:\n${problems.join('\n')}`);
  await mkdir(dataDir, { recursive: true });
  await copyFile(inside(dir, manifest.database.path), databasePath(dataDir));
  progress(`database restored (event ${manifest.database.last_event_id})`);
  for (const repo of manifest.repositories) {
    const target = inside(dataDir, repo.disk_path);
    await mkdir(path.dirname(target), { recursive: true });
    await restoreBundle(repo.bundle ? inside(dir, repo.bundle) : null, target, repo.head);
  }
  progress(`${manifest.repositories.length} repositories and wikis restored`);
  for (const file of manifest.files) {
    const target = inside(dataDir, file.restore_to);
    await mkdir(path.dirname(target), { recursive: true });
    await copyFile(inside(dir, file.path), target);
  }
  progress(`${manifest.files.length} files restored`);
  return manifest;
}
