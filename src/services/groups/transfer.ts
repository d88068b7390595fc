import type { Db } from '../../db/connection.js';
import { inTransaction } from '../../db/connection.js';
import { groupNameTaken, groupTreeIds, narrowTreeVisibility, projectPathTaken, projectsIn, rewriteDescendantPaths, updateGroupRow } from '../../db/tables/groups.js';
import { findNamespaceById, findNamespaceByPath, type NamespaceRow } from '../../db/tables/namespaces.js';
import { badRequest } from '../../errors.js';
import { recordProjectRenamed } from '../../geo/repository-events.js';
import { nowIso } from '../../storage/clock.js';
import { dropEpicIssuesOutside } from '../planning/epic-issues.js';
import { can, canCreateTopLevelGroup } from '../permissions.js';
import type { Actor } from '../users/authentication.js';

/** GitLab's Groups::TransferService refusals, answered as 400 `Transfer failed: <reason>`. */
const failed = (reason: string) => badRequest(`Transfer failed: ${reason}`);

/**
 * Moves a group under another parent, or to the top level when `parent` is null (GitLab 14's
 * POST /groups/:id/transfer; the route checked admin_group on the group). The actor must be able
 * to create a subgroup in the new parent (or a top-level group); the path must be free there
 * (no group, no project, and at the top level no user, with that path). The group's and every
 * descendant's full_path and full_name follow; a group more open than its new parent is narrowed,
 * with what is inside it, as GitLab's update_visibility does. Repositories and wikis stay where they
 * are (hashed storage): only rows change, and each project under the group gets a Geo rename event.
 */
export function transferGroup(db: Db, actor: Actor, group: NamespaceRow, parent: NamespaceRow | null): NamespaceRow {
  return inTransaction(db, () => {
    if (parent === null && group.parent_id === null) throw failed('Group is already a root group.');
    if (parent !== null && parent.id === group.parent_id) throw failed('Group is already associated to the parent group.');
    const tree = groupTreeIds(db, group.id);
    if (parent !== null && tree.includes(parent.id)) throw failed('Cannot transfer group to one of its subgroup.');
    if (parent ? !can(db, actor, 'create_subgroup', parent) : !canCreateTopLevelGroup(actor)) throw failed("You don't have enough permissions.");
    const fullPath = parent ? `${parent.full_path}/${group.path}` : group.path;
    if (findNamespaceByPath(db, fullPath) || (parent && projectPathTaken(db, parent.id, group.path))) {
      throw failed('The parent group already has a subgroup or a project with the same path.');
    }
    // Group names are unique per parent (the model validation a transfer's save runs).
    if (groupNameTaken(db, parent?.id ?? null, group.name, group.id)) throw failed('Validation failed: Name has already been taken');

    const now = nowIso();
    const fullName = parent ? `${parent.full_name} / ${group.name}` : group.name;
    updateGroupRow(db, group.id, { parent_id: parent?.id ?? null, full_path: fullPath, full_name: fullName, updated_at: now });
    rewriteDescendantPaths(db, group.id, { fullPath: group.full_path, fullName: group.full_name }, { fullPath, fullName }, now);
    if (parent && group.visibility_level > parent.visibility_level) narrowTreeVisibility(db, tree, parent.visibility_level, now);
    for (const project of projectsIn(db, tree)) {
      recordProjectRenamed(db, project.id);
      dropEpicIssuesOutside(db, project.id, project.namespace_id);
    }
    return findNamespaceById(db, group.id)!;
  });
}
