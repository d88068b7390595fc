import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { deleteGroupGroupLink, findGroupGroupLink, insertGroupGroupLink, sharedWithGroups, type SharedWithGroupRow } from '../../db/tables/group-group-links.js';
import { can } from '../permissions.js';
import type { NamespaceRow } from '../../db/tables/namespaces.js';
import { conflict, notFound } from '../../errors.js';
import { nowIso } from '../../storage/clock.js';
import { findVisibleGroup } from '../find-visible.js';
import { assertUnmodifiedSince } from '../unmodified-since.js';
import type { Actor } from '../users/authentication.js';

export interface GroupShareInput {
  groupId: number;
  groupAccess: number;
  expiresAt?: string;
}

/**
 * Shares `group` with another group (GitLab's Groups::GroupLinks::CreateService): the route checked
 * admin_group; the shared-with group must be one the actor sees (404 `Group`). A second share with
 * the same group, or a share with itself, is a 409 as GitLab's validation answers.
 */
export function shareGroup(db: Db, actor: Actor, group: NamespaceRow, share: GroupShareInput): void {
  inTransaction(db, () => {
    const sharedWith = findVisibleGroup(db, actor, { id: share.groupId });
    if (sharedWith.id === group.id) throw conflict('Shared with group cannot be the same as the shared group');
    if (findGroupGroupLink(db, group.id, sharedWith.id)) throw conflict('Shared with group has already been taken');
    const now = nowIso();
    insertGroupGroupLink(db, {
      shared_group_id: group.id,
      shared_with_group_id: sharedWith.id,
      group_access: share.groupAccess,
      expires_at: share.expiresAt ?? null,
      created_at: now,
      updated_at: now,
    });
  });
}

/** Stops sharing `group` with the group `sharedWithGroupId`; 404 `Group Link` when it was not shared. */
export function unshareGroup(db: Db, group: NamespaceRow, sharedWithGroupId: number, unmodifiedSince: number | null): void {
  inTransaction(db, () => {
    const link = findGroupGroupLink(db, group.id, sharedWithGroupId);
    if (!link) throw notFound('Group Link');
    assertUnmodifiedSince(unmodifiedSince, link.updated_at);
    deleteGroupGroupLink(db, link.id);
  });
}

/** The groups `group` is shared with that the actor may see (GitLab's shared_with_group_links_visible_to_user). */
export function visibleSharedWithGroups(db: Db, actor: Actor | null, group: NamespaceRow): SharedWithGroupRow[] {
  return sharedWithGroups(db, group.id).filter((row) => can(db, actor, 'read_group', row));
}
