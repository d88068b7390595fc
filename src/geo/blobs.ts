import path from 'node:path';
import type { Db } from '../db/connection.js';
import { prepare } from '../db/connection.js';
import { ARTIFACTS_DIR, LFS_OBJECTS_DIR, REPOSITORIES_DIR, UPLOADS_DIR } from '../storage/layout.js';

/** What a secondary replicates besides rows; also the registry's item_type and the failures `type`. */
export const BLOB_TYPES = ['repository', 'wiki', 'lfs_object', 'job_artifact', 'attachment', 'snippet_repository', 'group_wiki_repository'] as const;
export type BlobType = (typeof BLOB_TYPES)[number];

export const BLOB_ACTIONS = ['created', 'updated', 'deleted', 'renamed'] as const;
export type BlobAction = (typeof BLOB_ACTIONS)[number];

/** The data directory each type's copies live under; a blob path outside it is refused. */
const BLOB_ROOTS: Readonly<Record<BlobType, string>> = {
  repository: REPOSITORIES_DIR,
  wiki: REPOSITORIES_DIR,
  lfs_object: LFS_OBJECTS_DIR,
  job_artifact: ARTIFACTS_DIR,
  attachment: UPLOADS_DIR,
  snippet_repository: REPOSITORIES_DIR,
  group_wiki_repository: REPOSITORIES_DIR,
};

/** The types whose copies are git repositories (fetched, checked by refs checksum) rather than files. */
export const GIT_BLOB_TYPES = ['repository', 'wiki', 'snippet_repository', 'group_wiki_repository'] as const satisfies readonly BlobType[];
export const isGitBlobType = (type: BlobType): type is (typeof GIT_BLOB_TYPES)[number] => (GIT_BLOB_TYPES as readonly BlobType[]).includes(type);

/**
 * A blob event, as the primary appends it after the blob is durable (a push's after
 * receive-pack succeeded, a file's after its rename) and a secondary's registry reads it.
 * `id` is the project id for a repository or wiki, the snippet id for a snippet repository
 * (project_id its project, null for a personal snippet), the group id for a group wiki
 * (project_id null) and the row id for a file (lfs_objects,
 * ci_job_artifacts, uploads). A repository `deleted` means the project went: a secondary drops
 * every copy of that project.
 */
export interface BlobEvent {
  readonly type: BlobType;
  readonly action: BlobAction;
  readonly id: number;
  readonly project_id: number | null;
  /** Where the blob lives, relative to the data directory (both sites use one layout). */
  readonly path: string;
  /** After the change: the refs checksum of a repository or wiki, the sha256 of a file; null for deletes. */
  readonly checksum: string | null;
  /** A file's size in bytes; null otherwise. */
  readonly size: number | null;
}

/**
 * Appends a blob event to the log. Call it after the blob is durable, inside the transaction
 * that records the change when there is one, so the event and the row commit together.
 */
export function appendBlobEvent(db: Db, event: BlobEvent, now = Date.now()): number {
  return Number(
    prepare(db, "INSERT INTO geo_event_log (created_at, kind, table_name, op, row_id, payload) VALUES (?, 'blob', ?, ?, ?, ?)").run(
      now,
      event.type,
      event.action,
      event.id,
      JSON.stringify(event),
    ).lastInsertRowid,
  );
}

/** `relative` when it is a plain path under the type's root; null for anything that could escape it. */
export function safeBlobPath(type: BlobType, relative: string): string | null {
  if (typeof relative !== 'string' || !relative || path.isAbsolute(relative) || relative.includes('\0')) return null;
  const normalized = path.posix.normalize(relative.replace(/\\/g, '/'));
  if (normalized !== relative || normalized.split('/').some((part) => part === '..' || part === '.')) return null;
  return normalized.startsWith(`${BLOB_ROOTS[type]}/`) ? normalized : null;
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** Reads a blob event's payload from the wire; null when any field is missing or malformed. */
export function parseBlobEvent(payload: unknown): BlobEvent | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const event = payload as Record<string, unknown>;
  const type = event.type as BlobType;
  if (!BLOB_TYPES.includes(type) || !BLOB_ACTIONS.includes(event.action as BlobAction) || !isCount(event.id) || event.id === 0) return null;
  if (event.project_id !== null && !isCount(event.project_id)) return null;
  if (safeBlobPath(type, event.path as string) === null) return null;
  if (event.checksum !== null && !(typeof event.checksum === 'string' && /^[0-9a-f]{64}$/.test(event.checksum))) return null;
  if (event.size !== null && !isCount(event.size)) return null;
  return event as unknown as BlobEvent;
}
