import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { ensureLfsObject, findLfsObject, isLfsObjectLinked, linkLfsObject } from '../../db/tables/lfs-objects.js';
import { findNamespaceById } from '../../db/tables/namespaces.js';
import { findProjectById, type ProjectRow } from '../../db/tables/projects.js';
import { recordFileChange } from '../../geo/file-events.js';
import { nowIso } from '../../storage/clock.js';
import { BlobMismatchError } from '../../storage/blob-store.js';
import type { BlobStores } from '../../storage/blob-stores.js';
import { lfsObjectKey, lfsObjectPath } from '../../storage/layout.js';

const OID = /^[0-9a-f]{64}$/;

/** Whether `oid` is an LFS object id: a sha256 in lower-case hex. */
export const isLfsOid = (oid: unknown): oid is string => typeof oid === 'string' && OID.test(oid);

/** An LFS object a project may read: its row id and size. */
export interface LfsObject {
  readonly id: number;
  readonly size: number;
}

/** LFS is on for a project when the project and every group above it have it on. */
export function lfsEnabled(db: Db, project: ProjectRow): boolean {
  if (!project.lfs_enabled) return false;
  let namespaceId: number | null = project.namespace_id;
  for (let depth = 0; namespaceId !== null && depth < 32; depth += 1) {
    const namespace = findNamespaceById(db, namespaceId);
    if (!namespace) break;
    if (namespace.kind === 'group' && !namespace.lfs_enabled) return false;
    namespaceId = namespace.parent_id;
  }
  return true;
}

/** The project and the projects it was forked from: a fork shares its sources' LFS objects. */
function projectAndSources(db: Db, project: ProjectRow): number[] {
  const ids = [project.id];
  let source = project.forked_from_project_id;
  while (source !== null && !ids.includes(source) && ids.length < 32) {
    ids.push(source);
    source = findProjectById(db, source)?.forked_from_project_id ?? null;
  }
  return ids;
}

/** The object when the project (or a project it was forked from) has it linked; the file on disk is not looked at. */
export function linkedLfsObject(db: Db, project: ProjectRow, oid: string): LfsObject | null {
  const object = findLfsObject(db, oid);
  return object && isLfsObjectLinked(db, object.id, projectAndSources(db, project)) ? { id: object.id, size: object.size } : null;
}

/** The object when the project (or a project it was forked from) has it linked and it is in its store. */
export async function storedLfsObject(db: Db, blobs: BlobStores, project: ProjectRow, oid: string): Promise<LfsObject | null> {
  const object = linkedLfsObject(db, project, oid);
  if (!object || !(await blobs.head(lfsObjectKey(oid)))) return null;
  return object;
}

/**
 * What a batch answers for one requested object (GITLAB-NOTES 5): an error, or the size and the
 * transfer the client is to make (none when an upload finds the object already here).
 */
export type LfsBatchAnswer =
  | { readonly oid: string; readonly size: unknown; readonly error: { readonly code: 404 | 422; readonly message: string } }
  | { readonly oid: string; readonly size: number; readonly transfer: 'download' | 'upload' | null };

/**
 * Decides a batch request's objects, in order. An upload of an object already stored (perhaps
 * through a fork's source) links it to the project and needs no transfer.
 */
export async function answerLfsBatch(
  db: Db,
  blobs: BlobStores,
  project: ProjectRow,
  operation: 'download' | 'upload',
  objects: readonly { oid?: unknown; size?: unknown }[],
): Promise<LfsBatchAnswer[]> {
  const answers: LfsBatchAnswer[] = [];
  for (const item of objects) {
    const oid = typeof item?.oid === 'string' ? item.oid : '';
    const size = typeof item?.size === 'number' && Number.isSafeInteger(item.size) && item.size >= 0 ? item.size : -1;
    if (!isLfsOid(oid) || size < 0) {
      answers.push({ oid, size: item?.size ?? null, error: { code: 422, message: 'Invalid oid or size.' } });
      continue;
    }
    const stored = await storedLfsObject(db, blobs, project, oid);
    if (operation === 'download') {
      if (!stored) answers.push({ oid, size, error: { code: 404, message: 'Object does not exist on the server or you don\'t have permissions to access it' } });
      else answers.push({ oid, size: stored.size, transfer: 'download' });
    } else if (stored) {
      inTransaction(db, () => {
        const now = nowIso();
        linkLfsObject(db, ensureLfsObject(db, oid, stored.size, now).id, project.id, now);
      });
      answers.push({ oid, size, transfer: null });
    } else {
      answers.push({ oid, size, transfer: 'upload' });
    }
  }
  return answers;
}

/**
 * How an upload ended: stored (or already there), or refused because the body was not the
 * declared object; `too_long` leaves the rest of the body unread.
 */
export type LfsUploadResult = 'stored' | 'mismatch' | 'too_long';

/**
 * Stores an uploaded LFS object for the project (the basic transfer's PUT): the body streams into
 * the LFS store, never past the declared size, and becomes visible there only once it matched the
 * oid and size; then the row, the project's link and (for a new object) its blob event commit
 * together, after the store acknowledged. A failed store leaves nothing and throws.
 */
export async function storeLfsObject(db: Db, blobs: BlobStores, dataDir: string, project: ProjectRow, oid: string, size: number, body: AsyncIterable<Buffer>): Promise<LfsUploadResult> {
  try {
    await blobs.put(lfsObjectKey(oid), body, { sha256: oid, size, maxBytes: size });
  } catch (error) {
    if (error instanceof BlobMismatchError) return error.reason === 'too_long' ? 'too_long' : 'mismatch';
    throw error;
  }
  inTransaction(db, () => {
    const now = nowIso();
    const known = findLfsObject(db, oid);
    const object = known ?? ensureLfsObject(db, oid, size, now);
    if (!known) recordFileChange(db, dataDir, { type: 'lfs_object', action: 'created', id: object.id, projectId: null, file: lfsObjectPath(dataDir, oid), sha256: oid, size });
    linkLfsObject(db, object.id, project.id, now);
  });
  return 'stored';
}
