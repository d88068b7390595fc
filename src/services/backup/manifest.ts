import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';

export const MANIFEST_FILE = 'manifest.json';
export const MANIFEST_FORMAT = 1;

/** One file of a backup, by its path inside the backup directory. */
export interface BackupEntry {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
}

/** A repository or wiki of the backup: its bundle (null when it had no refs), its refs and HEAD. */
export interface BackupRepository {
  readonly project_id: number;
  readonly wiki: boolean;
  /** The bare repository's path relative to the data directory (the same on restore). */
  readonly disk_path: string;
  readonly bundle: string | null;
  readonly head: string | null;
  readonly refs: Record<string, string>;
}

/** A copied file: where it lives in the backup and where it goes under the data directory. */
export interface BackupFile {
  readonly path: string;
  readonly restore_to: string;
}

export interface BackupManifest {
  readonly format: number;
  readonly created_at: string;
  readonly version: string;
  readonly source: { readonly role: string; readonly node_name: string | null; readonly data_dir: string };
  /** The database point: the newest event id of the copied database (everything later is not in it). */
  readonly database: { readonly path: string; readonly last_event_id: number };
  readonly repositories: readonly BackupRepository[];
  readonly files: readonly BackupFile[];
  /** Every file of the backup but the manifest, with size and sha256. */
  readonly entries: readonly BackupEntry[];
  /** Repositories the database names that were gone from disk when the backup copied them (deleted meanwhile). */
  readonly missing: readonly string[];
  /**
   * The blob kinds kept in an object store, whose blobs the backup does not copy (the store keeps
   * them, with its own versioning or replication): where they are and each blob's key and size,
   * so that a verify can check they still exist. Absent in backups of sites with none.
   */
  readonly object_stored?: readonly StoredKind[];
}

export interface StoredKind {
  readonly kind: string;
  readonly endpoint: string;
  readonly bucket: string;
  readonly prefix: string;
  readonly blobs: readonly { readonly key: string; readonly size: number }[];
}

/** sha256 (hex) and size of a file, read as a stream. */
export async function hashFile(file: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(file), hash);
  return { size: (await stat(file)).size, sha256: hash.digest('hex') };
}

/** Writes the manifest last and atomically: a backup directory with a manifest is a finished backup. */
export async function writeManifest(dir: string, manifest: BackupManifest): Promise<void> {
  const file = path.join(dir, MANIFEST_FILE);
  await writeFile(`${file}.part`, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(`${file}.part`, file);
}

export async function readManifest(dir: string): Promise<BackupManifest> {
  const text = await readFile(path.join(dir, MANIFEST_FILE), 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new Error(error.code === 'ENOENT' ? `${dir} holds no ${MANIFEST_FILE}: not a finished backup` : `cannot read the manifest: ${error.message}`);
  });
  const manifest = JSON.parse(text) as BackupManifest;
  if (manifest.format !== MANIFEST_FORMAT) throw new Error(`manifest format ${manifest.format} is not ${MANIFEST_FORMAT}`);
  return manifest;
}

/** A path inside the backup or data directory, refused when it would leave it (a tampered manifest). */
export function inside(root: string, relative: string): string {
  const full = path.resolve(root, relative);
  if (!full.startsWith(path.resolve(root) + path.sep)) throw new Error(`manifest path ${relative} leaves ${root}`);
  return full;
}
