import type { Db } from '../../db/connection.js';
import { prepare } from '../../db/connection.js';
import type { BlobType } from '../blobs.js';

/** The replicated repository_states column holding the primary's refs checksum of each type. */
const PRIMARY_CHECKSUM = { repository: 'repository_checksum', wiki: 'wiki_checksum' } as const;

/**
 * Whether this secondary's copy of an item may answer a read. A repository or wiki must be synced,
 * not being deleted, and hold exactly the refs the primary last recorded (its checksum equals the
 * replicated repository_states one, so an update this site has applied but not yet fetched makes
 * it stale). A file never changes once written: synced and not being deleted is enough, since a
 * sync verifies its sha256 before marking it so. One lookup on the (item_type, item_id) index.
 */
export function isCopyCurrent(db: Db, type: BlobType, itemId: number): boolean {
  if (type === 'repository' || type === 'wiki') {
    const sql = `SELECT 1 FROM geo_registry r JOIN repository_states s ON s.project_id = r.item_id
      WHERE r.item_type = ? AND r.item_id = ? AND r.state = 'synced' AND r.to_delete = 0 AND r.checksum = s.${PRIMARY_CHECKSUM[type]}`;
    return prepare(db, sql).get(type, itemId) !== undefined;
  }
  return prepare(db, "SELECT 1 FROM geo_registry WHERE item_type = ? AND item_id = ? AND state = 'synced' AND to_delete = 0").get(type, itemId) !== undefined;
}
