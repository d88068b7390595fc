import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { updateGroupRow } from '../../db/tables/groups.js';
import { findNamespaceById, type NamespaceRow } from '../../db/tables/namespaces.js';
import { notFound } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';
import { groupAvatarDir } from '../../storage/layout.js';
import type { UploadedFile } from '../../storage/uploaded-file.js';
import { removeAvatarFiles, storeGroupAvatar } from '../avatars.js';

/**
 * Sets (an image checked by assertAvatar) or removes (null, `avatar=""`) the group's avatar, as
 * PUT /groups/:id does. The files are written before the row names them and removed after it no
 * longer does, so the avatar URL never points at a missing file.
 */
export async function changeGroupAvatar(db: Db, dataDir: string, groupId: number, avatar: UploadedFile | null): Promise<NamespaceRow> {
  if (avatar) {
    const name = await storeGroupAvatar(dataDir, groupId, avatar);
    inTransaction(db, () => updateGroupRow(db, groupId, { avatar_path: name, updated_at: nowIso() }));
  } else {
    inTransaction(db, () => updateGroupRow(db, groupId, { avatar_path: null, updated_at: nowIso() }));
    await removeAvatarFiles(groupAvatarDir(dataDir, groupId));
  }
  const group = findNamespaceById(db, groupId);
  if (!group) throw notFound('Group');
  return group;
}
