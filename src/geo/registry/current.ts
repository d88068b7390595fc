import type { Db } from '../../db/connection.js';
import { prepare } from '../../db/connection.js';
import type { BlobType } from '../blobs.js';
import { isGitItemType, primaryRefsChecksum } from '../git-items.js';

/**
 * Whether this secondary's copy of an item may answer a read. A repository, wiki or snippet repository must be synced,
 * not being deleted, and hold exactly the refs the primary last recorded (its checksum equals the
 * replicated repository_states or snippets one, so an update this site has applied but not yet
 * fetched makes it stale). A file never changes once written: synced and not being deleted is enough, since a
 * sync verifies its sha256 before marking it so. One lookup on the (item_type, item_id) index.
 */
export function isCopyCurrent(db: Db, type: BlobType, itemId: number): boolean {
  if (isGitItemType(type)) {
    const synced = prepare(db, "SELECT checksum FROM geo_registry WHERE item_type = ? AND item_id = ? AND state = 'synced' AND to_delete = 0").pluck().get(type, itemId) as string | null | undefined;
    return synced !== undefined && synced !== null && synced === primaryRefsChecksum(db, type, itemId);
  }
  return prepare(db, "SELECT 1 FROM geo_registry WHERE item_type = ? AND item_id = ? AND state = 'synced' AND to_delete = 0").get(type, itemId) !== undefined;
}
