import { recordGroupWikisDeleted } from '../../geo/group-wiki-events.js';
import type { Db } from '../../db/connection.js';
import { restrictedVisibilityError, type ApplicationSettings } from '../administration/application-settings.js';
import { inTransaction } from '../../db/connection.js';
import { deleteGroupRow, groupTreeIds, insertGroup, rewriteDescendantPaths, updateGroupRow, type GroupColumns } from '../../db/tables/groups.js';
import { insertMember } from '../../db/tables/members.js';
import { findNamespaceById, type NamespaceRow } from '../../db/tables/namespaces.js';
import { badRequest, forbidden, invalid } from '../../errors.js';
import type { Actor } from '../users/authentication.js';
import { nowIso } from '../../storage/clock.js';
import { rubyHash, validateGroup } from './validation.js';
import { canCreateTopLevelGroup, can, isAdmin } from '../permissions.js';
import { ACCESS, VISIBILITY, type VisibilityName } from '../../db/levels.js';
import { findVisibleGroup } from '../find-visible.js';
import { removeGroupIssuables } from '../issuables/issue-removal.js';

/** The attributes POST and PUT /groups accept (SPEC: Groups). */
export interface GroupInput {
  name?: string;
  path?: string;
  description?: string;
  visibility?: VisibilityName;
  lfs_enabled?: boolean;
  request_access_enabled?: boolean;
  membership_lock?: boolean;
  share_with_group_lock?: boolean;
  shared_runners_minutes_limit?: number;
  parent_id?: number;
}

const flag = (value: boolean | undefined) => (value === undefined ? undefined : value ? 1 : 0);

/** The columns an input sets, leaving out what it does not mention. */
function columnsOf(input: GroupInput): GroupColumns {
  const columns: GroupColumns = {
    name: input.name,
    path: input.path,
    description: input.description,
    visibility_level: input.visibility === undefined ? undefined : VISIBILITY[input.visibility],
    lfs_enabled: flag(input.lfs_enabled),
    request_access_enabled: flag(input.request_access_enabled),
    membership_lock: flag(input.membership_lock),
    share_with_group_lock: flag(input.share_with_group_lock),
    shared_runners_minutes_limit: input.shared_runners_minutes_limit,
  };
  for (const key of Object.keys(columns) as (keyof GroupColumns)[]) if (columns[key] === undefined) delete columns[key];
  return columns;
}

/** The CI minutes limit is for admins only (EE: `authenticated_as_admin!`). */
function assertMayLimitMinutes(actor: Actor, input: GroupInput): void {
  if (input.shared_runners_minutes_limit !== undefined && !isAdmin(actor)) throw forbidden();
}

/**
 * Creates a group, top-level or below a parent the actor may see (404) and own (403); the creator
 * becomes its owner. Model errors are one 400 naming them as a Ruby hash, as GitLab 10.x answers.
 */
export function createGroup(db: Db, actor: Actor, input: GroupInput & { name: string; path: string }, settings: ApplicationSettings): NamespaceRow {
  return inTransaction(db, () => {
    const parent = input.parent_id === undefined ? null : findVisibleGroup(db, actor, { id: input.parent_id });
    if (parent ? !can(db, actor, 'create_subgroup', parent) : !canCreateTopLevelGroup(actor)) throw forbidden();
    assertMayLimitMinutes(actor, input);
    const visibility = VISIBILITY[input.visibility ?? settings.default_group_visibility];
    const errors = validateGroup(db, { id: null, name: input.name, path: input.path, visibility_level: visibility, parent });
    const restricted = restrictedVisibilityError(settings, isAdmin(actor), visibility);
    if (restricted) (errors.visibility_level ??= []).push(restricted);
    if (Object.keys(errors).length) throw badRequest(`Failed to save group ${rubyHash(errors)}`);

    const now = nowIso();
    const id = insertGroup(db, {
      ...columnsOf(input),
      name: input.name,
      path: input.path,
      parent_id: parent?.id ?? null,
      visibility_level: visibility,
      full_path: parent ? `${parent.full_path}/${input.path}` : input.path,
      full_name: parent ? `${parent.full_name} / ${input.name}` : input.name,
      created_at: now,
      updated_at: now,
    });
    insertMember(db, { table: 'group_members', column: 'namespace_id' }, { sourceId: id, userId: actor.user.id, accessLevel: ACCESS.owner, expiresAt: null, createdById: actor.user.id, now });
    return findNamespaceById(db, id)!;
  });
}

/**
 * Updates a group the actor administers (the route's admin_group guard). A new path or name
 * carries over to the full_path and full_name of every group below it. Model errors are a 400
 * with the field object (`render_validation_error!`).
 */
export function updateGroup(db: Db, actor: Actor, group: NamespaceRow, input: GroupInput, settings: ApplicationSettings): NamespaceRow {
  return inTransaction(db, () => {
    assertMayLimitMinutes(actor, input);
    const columns = columnsOf(input);
    const parent = group.parent_id === null ? null : findNamespaceById(db, group.parent_id)!;
    const next = { ...group, ...columns };
    const errors = validateGroup(db, { id: group.id, name: next.name, path: next.path, visibility_level: next.visibility_level, parent });
    const restricted = next.visibility_level === group.visibility_level ? null : restrictedVisibilityError(settings, isAdmin(actor), next.visibility_level);
    if (restricted) (errors.visibility_level ??= []).push(restricted);
    if (Object.keys(errors).length) throw invalid(errors);

    const now = nowIso();
    const fullPath = parent ? `${parent.full_path}/${next.path}` : next.path;
    const fullName = parent ? `${parent.full_name} / ${next.name}` : next.name;
    updateGroupRow(db, group.id, { ...columns, full_path: fullPath, full_name: fullName, updated_at: now });
    if (fullPath !== group.full_path || fullName !== group.full_name) {
      rewriteDescendantPaths(db, group.id, { fullPath: group.full_path, fullName: group.full_name }, { fullPath, fullName }, now);
    }
    return findNamespaceById(db, group.id)!;
  });
}

/**
 * Removes a group whose projects are already gone (removal.ts deletes them first):
 * its subgroups, memberships, shares, custom attributes and wiki rows go with it through the
 * foreign keys, the wikis' Geo `deleted` events in the same transaction. Returns the ids of the
 * groups whose wiki repositories are then to remove. Should a project still be inside, the
 * projects' foreign key fails the delete and leaves all in place.
 */
export function deleteEmptyGroup(db: Db, group: NamespaceRow): number[] {
  return inTransaction(db, () => {
    const tree = groupTreeIds(db, group.id);
    removeGroupIssuables(db, tree);
    const wikis = recordGroupWikisDeleted(db, tree);
    deleteGroupRow(db, group.id);
    return wikis;
  });
}
